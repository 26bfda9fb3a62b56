import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ACCEPT_LENGTH } from '../../../src/gateway/http/media-types.js';
import { send } from '../../support/http.js';
import { startStack, type Stack } from '../../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const QUERY = JSON.stringify({ query: '{ searchCompanies(q: "Zebra Quantum", jurisdiction: "GB") { totalCount } }' });

function postWithAccept(accept: string | undefined) {
  return send(stack.gateway.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) },
    body: QUERY,
  });
}

function mediaTypeOf(contentType: unknown): string {
  return String(contentType).split(';')[0]!;
}

describe('Accept negotiation honours q-values', () => {
  it.each([
    ['application/json;q=0', 'refuses JSON'],
    ['*/*;q=0', 'refuses every type'],
    ['application/json;q=0, application/graphql-response+json;q=0', 'refuses both JSON types'],
    ['application/json; q=0.0, text/plain', 'refuses JSON, with spaces'],
  ])('answers 406 NOT_ACCEPTABLE to Accept: %s (%s)', async (accept) => {
    const answer = await postWithAccept(accept);
    expect(answer.status).toBe(406);
    expect(JSON.parse(answer.text).errors[0].extensions).toEqual({ requestId: expect.any(String), code: 'NOT_ACCEPTABLE' });
  });

  it.each([
    ['application/json;q=0.5, application/graphql-response+json', 'application/graphql-response+json'],
    ['application/graphql-response+json;q=0.5, application/json', 'application/json'],
    ['application/graphql-response+json, application/json;q=0.9', 'application/graphql-response+json'],
    ['application/json, application/graphql-response+json', 'application/json'],
    ['application/json;q=0, */*', 'application/graphql-response+json'],
    ['application/json;q=0.1, text/event-stream', 'text/event-stream'],
    ['text/event-stream;q=0.1, application/json', 'application/json'],
    ['*/*', 'application/json'],
    [undefined, 'application/json'],
  ])('answers Accept: %s in %s', async (accept, expected) => {
    const answer = await postWithAccept(accept);
    expect(answer.status).toBe(200);
    expect(mediaTypeOf(answer.headers['content-type'])).toBe(expected);
    expect(answer.text).toContain('"totalCount":1');
  });

  it('keeps the negotiated type in answers from the response cache', async () => {
    for (const [accept, expected] of [
      ['application/json;q=0.5, application/graphql-response+json', 'application/graphql-response+json'],
      ['application/graphql-response+json;q=0.5, application/json', 'application/json'],
    ] as const) {
      const answers = [await postWithAccept(accept), await postWithAccept(accept)];
      expect(answers.map((answer) => mediaTypeOf(answer.headers['content-type']))).toEqual([expected, expected]);
    }
  });

  it('refuses an Accept header longer than it reads, without echoing it', async () => {
    const accept = `${'x-unknown/type, '.repeat(40)}application/json`;
    expect(accept.length).toBeGreaterThan(MAX_ACCEPT_LENGTH);
    const answer = await postWithAccept(accept);
    expect(answer.status).toBe(406);
    expect(JSON.parse(answer.text)).toEqual({
      errors: [
        {
          message: `The Accept header is ${accept.length} characters long; at most ${MAX_ACCEPT_LENGTH} are read. Send a shorter one, such as Accept: application/graphql-response+json`,
          extensions: { requestId: expect.any(String), code: 'NOT_ACCEPTABLE' },
        },
      ],
    });
    const longest = `${'x'.repeat(MAX_ACCEPT_LENGTH - '/y, application/json'.length)}/y, application/json`;
    expect((await postWithAccept(longest)).status).toBe(200);
  });
});
