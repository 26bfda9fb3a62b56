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

/**
 * A variable with a default may stand where a value is required; sent `null`, it is refused only during execution, as a
 * field error. Review of issue 35: graphql-js's error came without a code, beside `data`, where the plugin never looked.
 */
describe('a variable given null where an argument needs a value', () => {
  interface Case {
    case: string;
    query: string;
    argument: string;
    type: string;
    path?: string[];
    data: unknown;
    /** Upstream searches made by both requests: a field whose own arguments are refused makes none. */
    searches?: number;
  }
  it.each<Case>([
    {
      case: 'a directive of a root field',
      query: 'query($v: Boolean = true) { a: __typename @include(if: $v) }',
      argument: 'if',
      type: 'Boolean!',
      data: null,
    },
    {
      case: 'a directive of a fragment spread',
      query: 'query($v: Boolean = true) { ...F @skip(if: $v) } fragment F on Query { __typename }',
      argument: 'if',
      type: 'Boolean!',
      data: null,
    },
    {
      case: 'a directive of a field below the root, once the root field has run',
      query: 'query($v: Boolean = true) { searchCompanies(q: "acme", jurisdiction: "GB") { totalCount @include(if: $v) } }',
      argument: 'if',
      type: 'Boolean!',
      path: ['searchCompanies'],
      data: null,
      // The second request finds the window cached.
      searches: 1,
    },
    {
      case: "a non-null field's argument",
      query: 'query($v: String = "acme") { searchCompanies(q: $v, jurisdiction: "GB") { totalCount } }',
      argument: 'q',
      type: 'String!',
      path: ['searchCompanies'],
      data: null,
    },
    {
      case: "a nullable field's argument, beside the others' data",
      query: 'query($v: String = "1") { a: __typename company(companyNumber: $v, jurisdiction: "GB") { name } }',
      argument: 'companyNumber',
      type: 'String!',
      path: ['company'],
      data: { a: 'Query', company: null },
    },
    {
      case: "node's id",
      query: 'query($v: ID = "x") { node(id: $v) { id } }',
      argument: 'id',
      type: 'ID!',
      path: ['node'],
      data: { node: null },
    },
    {
      case: "an introspection field's argument",
      query: 'query($v: String = "Query") { __type(name: $v) { name } }',
      argument: 'name',
      type: 'String!',
      path: ['__type'],
      data: { __type: null },
    },
  ])('is BAD_USER_INPUT naming the argument and the variable: $case', async ({ query, argument, type, path, data, searches = 0 }) => {
    const before = stack.lookup.counters.searchRequests;
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const { status, text } = await stack.post({ query, variables: { v: null } }, { accept });
      expect([status, JSON.parse(text)]).toEqual([
        200,
        {
          errors: [
            {
              message: `Argument "${argument}" of non-null type "${type}" must not be null.`,
              // At the variable's use: its last mention in the one-line query.
              locations: [{ line: 1, column: query.lastIndexOf('$v') + 1 }],
              ...(path && { path }),
              extensions: { code: 'BAD_USER_INPUT', argument, variable: 'v', requestId: expect.any(String) },
            },
          ],
          data,
        },
      ]);
      // graphql-js writes errors before data.
      expect(Object.keys(JSON.parse(text))).toEqual(['errors', 'data']);
    }
    expect(stack.lookup.counters.searchRequests - before).toBe(searches);
  });
});
