import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/stack.js';

const NOT_AN_OBJECT = (what: string) => `Each operation of a batch must be a JSON object such as {"query": "{ __typename }"}, not ${what}`;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateway: { rateLimitPerMinute: 0, batchingLimit: 10 } });
});
afterAll(() => stack.close());

describe('batch items of every JSON type', () => {
  it('answers each item that is no operation with its own BAD_REQUEST, and runs the others', async () => {
    const { status, text } = await stack.post([
      null,
      42,
      'query { __typename }',
      [{ query: '{ __typename }' }],
      true,
      {},
      { query: 5 },
      { query: '{ __typename }' },
    ]);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual([
      { errors: [{ message: NOT_AN_OBJECT('null'), extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' } }] },
      { errors: [{ message: NOT_AN_OBJECT('a number'), extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' } }] },
      { errors: [{ message: NOT_AN_OBJECT('a string'), extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' } }] },
      { errors: [{ message: NOT_AN_OBJECT('an array'), extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' } }] },
      { errors: [{ message: NOT_AN_OBJECT('true'), extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' } }] },
      {
        errors: [
          {
            message: 'The request holds no GraphQL document: send one in "query", such as {"query": "{ __typename }"}',
            extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' },
          },
        ],
      },
      {
        errors: [
          {
            message: 'Expected "query" param to be a string, but given number.',
            extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' },
          },
        ],
      },
      { data: { __typename: 'Query' } },
    ]);
  });

  it('logs none of them as an error', () => {
    const errors = stack.logs.map((line) => JSON.parse(line) as { level: number; msg?: string }).filter((entry) => entry.level >= 50);
    expect(errors).toEqual([]);
  });
});
