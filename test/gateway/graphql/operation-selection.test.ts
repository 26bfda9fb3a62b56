import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

describe('an empty operationName', () => {
  it('picks the only operation, as no operationName does (Yoga answered 400 OPERATION_RESOLUTION_FAILURE)', async () => {
    const { status, text } = await stack.post({ query: 'query Only { __typename }', operationName: '' });
    expect({ status, body: JSON.parse(text) }).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
  });
});
