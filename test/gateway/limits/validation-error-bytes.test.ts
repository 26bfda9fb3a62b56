import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/stack.js';

const MAX_RESPONSE_BYTES = 16 * 1024;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateway: { maxResponseBytes: MAX_RESPONSE_BYTES, rateLimitPerMinute: 0 } });
});
afterAll(() => stack.close());

/**
 * One fragment using a variable no operation defines, spread by `operations`
 * operations: graphql-js reports the variable once per operation, its name
 * quoted each time.
 */
function undefinedVariableDocument(nameLength: number, operations: number): string {
  const variable = `v${'x'.repeat(nameLength)}`;
  const fragment = `fragment F on Query { searchCompanies(q: $${variable}, jurisdiction: "GB") { totalCount } }`;
  return [fragment, ...Array.from({ length: operations }, (_, i) => `query O${i} { ...F }`)].join(' ');
}

describe('MAX_RESPONSE_BYTES holds validation errors too', () => {
  it('refuses a list of validation errors larger than the limit, with RESPONSE_TOO_LARGE alone', async () => {
    const query = undefinedVariableDocument(7_000, 100);
    const { status, text } = await stack.post({ query, operationName: 'O0' });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(status).toBe(400);
    const { errors, data } = JSON.parse(text);
    expect(data).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(errors[0].extensions).toEqual({
      code: 'RESPONSE_TOO_LARGE',
      maxResponseBytes: MAX_RESPONSE_BYTES,
      requestId: expect.any(String),
    });
  });

  it('answers validation errors within the limit as they are', async () => {
    const query = undefinedVariableDocument(10, 3);
    const { status, text } = await stack.post({ query, operationName: 'O0' });
    expect(status).toBe(400);
    const { errors } = JSON.parse(text);
    expect(errors.map((error: { message: string }) => error.message)).toEqual(
      [0, 1, 2].map((i) => `Variable "$v${'x'.repeat(10)}" is not defined by operation "O${i}".`),
    );
  });
});
