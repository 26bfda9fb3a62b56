/**
 * Found by the adversarial review of the direct lane (graphql/direct-answers.ts):
 * requests the lane handled otherwise than Yoga alone did.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { comparable, type WrittenBy } from '../support/compared-gateways.js';
import { send, type HttpRequest } from '../support/http.js';
import { startStack, type Stack } from '../support/stack.js';

const writtenBy: WrittenBy = { direct: 0, yoga: 0 };
let stack: Stack;
/** A gateway whose Yoga answers every request. */
let reference: Stack;

beforeAll(async () => {
  const gateway = { responseCache: false, rateLimitPerMinute: 0 };
  [stack, reference] = await Promise.all([
    startStack({ gateway, directAnswers: { observe: (by) => (writtenBy[by] += 1) } }),
    startStack({ gateway, directAnswers: false }),
  ]);
});
afterAll(() => Promise.all([stack?.close(), reference?.close()]));
beforeEach(() => {
  writtenBy.direct = 0;
  writtenBy.yoga = 0;
});

/** Sends the same request, with one request id, to both gateways and checks that their status, headers (but Date) and body are the same. */
async function bothAnswer(sent: HttpRequest) {
  const request = { ...sent, headers: { 'x-request-id': 'direct-lane', ...sent.headers } };
  const [answer, expected] = [await send(stack.gateway.url, request), await send(reference.gateway.url, request)];
  expect(comparable(answer)).toEqual(comparable(expected));
  return answer;
}

const TYPENAME = JSON.stringify({ query: '{ __typename }' });
const JSON_POST = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };

describe('a request target ending in /health', () => {
  // Yoga's built-in health check answers every URL that ends in its endpoint with an empty 200, before reading the
  // request: Yoga alone answered POST /graphql?probe=/health so, the direct lane with the operation's result.
  it.each(['/graphql?probe=/health', '/graphql?/health'])('is a GraphQL request like any other: POST %s', async (path) => {
    const answer = await bothAnswer({ method: 'POST', path, headers: JSON_POST, body: TYPENAME });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ data: { __typename: 'Query' } });
    expect(writtenBy).toEqual({ direct: 1, yoga: 0 });
  });

  it('is a GraphQL request like any other: GET', async () => {
    const answer = await bothAnswer({
      path: `/graphql?query=${encodeURIComponent('{ __typename }')}&probe=/health`,
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('an operation waiting on the upstream many times at once', () => {
  // Every upstream wait listens on the request's abort signal (upstream/resilience/deadline.ts), one per alias of a
  // search. Node warns of a leak past ten listeners on an AbortSignal, on stderr and once per request: whatwg-node's
  // signal sets no limit, the lane's did.
  it('makes Node warn of no listener leak', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const aliases = Array.from({ length: 12 }, (_, i) => `a${i}: searchCompanies(q: "ferncastle", jurisdiction: GB) { totalCount }`);
      const answer = await bothAnswer({
        method: 'POST',
        path: '/graphql',
        headers: JSON_POST,
        body: JSON.stringify({ query: `{ ${aliases.join(' ')} }` }),
      });
      expect(answer.status).toBe(200);
      // Run by the lane, whose signal the twelve waits listened on.
      expect(writtenBy).toEqual({ direct: 1, yoga: 0 });
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
