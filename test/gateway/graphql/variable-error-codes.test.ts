/**
 * Variables that cannot be coerced to their declared type get a coded error
 * naming the variable, as bad arguments do. Found by the adversarial review
 * of issue 12: graphql-js answers them with a message and no code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
});
afterAll(() => stack.close());

const SEARCH = 'query ($q: String!, $size: Int) { searchCompanies(q: $q, jurisdiction: "GB", pageSize: $size) { totalCount } }';

async function errorsFor(variables: Record<string, unknown>, accept = 'application/graphql-response+json') {
  const before = stack.lookup.counters.searchRequests;
  const { status, text } = await stack.post({ query: SEARCH, variables }, { accept });
  expect(stack.lookup.counters.searchRequests).toBe(before);
  const body = JSON.parse(text) as { data?: unknown; errors: { message: string; extensions?: Record<string, unknown> }[] };
  expect(body.data).toBeUndefined();
  return { status, errors: body.errors };
}

describe('a variable that cannot be coerced', () => {
  // Review: README says bad arguments get BAD_USER_INPUT; a variable of the wrong type got a message and no code.
  it('of the wrong type gets 400 BAD_USER_INPUT naming the variable', async () => {
    const { status, errors } = await errorsFor({ q: 'acme', size: 'ten' });
    expect(status).toBe(400);
    expect(errors).toEqual([
      {
        message: 'Variable "$size" got invalid value "ten"; Int cannot represent non-integer value: "ten"',
        locations: [{ line: 1, column: 21 }],
        extensions: { requestId: expect.any(String), code: 'BAD_USER_INPUT', variable: 'size' },
      },
    ]);
  });

  it('that is required and missing, or null, gets the same', async () => {
    expect((await errorsFor({ size: 10 })).errors.map((error) => error.extensions)).toEqual([
      { code: 'BAD_USER_INPUT', variable: 'q', requestId: expect.any(String) },
    ]);
    expect((await errorsFor({ q: null })).errors[0]).toMatchObject({
      message: 'Variable "$q" of non-null type "String!" must not be null.',
      extensions: { requestId: expect.any(String), code: 'BAD_USER_INPUT', variable: 'q' },
    });
  });

  it('gets one error per bad variable, with the status it had before, whatever the Accept', async () => {
    const { status, errors } = await errorsFor({ size: 'ten' }, 'application/json');
    expect(status).toBe(400);
    expect(errors.map((error) => error.extensions?.variable)).toEqual(['q', 'size']);
  });

  it('is quoted at most 100 characters long in the message, however long the value sent', async () => {
    const long = 'x'.repeat(50_000);
    const { status, errors } = await errorsFor({ q: 'acme', size: long });
    expect(status).toBe(400);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toBe(
      `Variable "$size" got invalid value "${'x'.repeat(100)}…"; Int cannot represent non-integer value: "${'x'.repeat(100)}…"`,
    );
    expect(errors[0]!.extensions).toEqual({ code: 'BAD_USER_INPUT', variable: 'size', requestId: expect.any(String) });
  });
});
