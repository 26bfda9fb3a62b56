import { print } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { allFixtureCompanies } from '../../src/lookup-service/index.js';
import { DashboardSearchDocument } from '../generated/graphql.js';
import { comparable, type WrittenBy } from '../support/compared-gateways.js';
import { send } from '../support/http.js';
import { startStack, type Stack } from '../support/stack.js';

const writtenBy: WrittenBy = { direct: 0, yoga: 0 };
let stack: Stack;
/** A gateway whose Yoga answers every request, for the answer each case must match. */
let reference: Stack;

beforeAll(async () => {
  // No answer cache and no window reuse: every request below executes, and every search reaches the upstream.
  const gateway = { responseCache: false, rateLimitPerMinute: 0, cacheTtlMs: 1, cacheStaleWhileRevalidateMs: 0, upstreamRetries: 0 };
  [stack, reference] = await Promise.all([
    startStack({ lookup: { companies: allFixtureCompanies }, gateway, directAnswers: { observe: (by) => (writtenBy[by] += 1) } }),
    startStack({ lookup: { companies: allFixtureCompanies }, gateway, directAnswers: false }),
  ]);
});
afterAll(() => Promise.all([stack?.close(), reference?.close()]));
beforeEach(() => {
  writtenBy.direct = 0;
  writtenBy.yoga = 0;
  for (const { lookup } of [stack, reference]) {
    lookup.knobs.clearFaults();
    lookup.counters.reset();
  }
});

const DASHBOARD = print(DashboardSearchDocument);

/**
 * Sends the same request to both gateways; the answers' status, headers (all but Date, which the clock decides) and
 * body, which must be the same: the lane writes its own head, Content-Length included.
 */
async function bothAnswer(body: string, headers: Record<string, string>) {
  const request = { method: 'POST', path: '/graphql', headers: { 'x-request-id': 'direct-test', ...headers }, body };
  const [answer, expected] = [await send(stack.gateway.url, request), await send(reference.gateway.url, request)];
  expect(comparable(answer)).toEqual(comparable(expected));
  return { status: answer.status, contentType: answer.headers['content-type'], text: answer.text };
}

/** Operations the lane's gateway has run so far: Yoga logs this line for each one it executes, not for a settled result it only writes. */
function operationsRun(): number {
  return stack.logs.filter((line) => line.includes('"Processing GraphQL Parameters"')).length;
}

const JSON_POST = { 'content-type': 'application/json' };

describe('the direct lane', () => {
  it.each([
    ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
    ['application/json', 'application/json; charset=utf-8'],
    ['application/json;q=0.5, application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
  ])('writes an answer without errors itself, as Yoga would (Accept %s)', async (accept, contentType) => {
    const answer = await bothAnswer(JSON.stringify({ query: DASHBOARD, variables: { q: 'ferncastle', jurisdiction: 'GB' } }), {
      ...JSON_POST,
      accept,
    });
    expect(answer).toMatchObject({ status: 200, contentType });
    expect(JSON.parse(answer.text)).toEqual({ data: { searchCompanies: expect.objectContaining({ totalCount: 10 }) } });
    expect(writtenBy).toEqual({ direct: 1, yoga: 0 });
  });

  it('has Yoga write a result with errors, without executing it again', async () => {
    stack.lookup.knobs.failSearch({ status: 503 });
    reference.lookup.knobs.failSearch({ status: 503 });
    // A search neither gateway made before: no stale copy stands in for the failed search.
    const answer = await bothAnswer(JSON.stringify({ query: DASHBOARD, variables: { q: 'marlowe', jurisdiction: 'GB' } }), {
      ...JSON_POST,
      accept: 'application/graphql-response+json',
    });
    expect(JSON.parse(answer.text).errors).toEqual([
      expect.objectContaining({ extensions: { code: 'UPSTREAM_UNAVAILABLE', requestId: 'direct-test' } }),
    ]);
    expect(writtenBy).toEqual({ direct: 0, yoga: 1 });
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });

  it('has Yoga write a variable that cannot be coerced, from the one execution', async () => {
    const runsBefore = operationsRun();
    const answer = await bothAnswer(JSON.stringify({ query: DASHBOARD, variables: { q: 'ferncastle', jurisdiction: 7 } }), {
      ...JSON_POST,
      accept: 'application/json',
    });
    expect(JSON.parse(answer.text).errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ requestId: 'direct-test' }) }),
    ]);
    expect(writtenBy).toEqual({ direct: 0, yoga: 1 });
    expect(operationsRun() - runsBefore).toBe(1);
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it.each([
    ['a parameter Yoga does not know', JSON.stringify({ query: DASHBOARD, variables: {}, unknown: 1 })],
    ['a query that is not a string', JSON.stringify({ query: 7 })],
  ])('leaves to Yoga a request its parameter checks refuse: %s', async (_, body) => {
    const answer = await bothAnswer(body, { ...JSON_POST, accept: 'application/graphql-response+json' });
    expect(answer.status).toBe(400);
    // Refused in onParams, before anything ran: the lane neither wrote it nor handed Yoga a result.
    expect(writtenBy).toEqual({ direct: 0, yoga: 0 });
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it('has Yoga write the 400 of an operation name the document lacks, refused after parsing', async () => {
    const answer = await bothAnswer(JSON.stringify({ query: DASHBOARD, operationName: 'Elsewhere' }), {
      ...JSON_POST,
      accept: 'application/graphql-response+json',
    });
    expect(answer.status).toBe(400);
    // Not an onParams refusal: the lane's run ends in a result with the error, which Yoga writes.
    expect(writtenBy).toEqual({ direct: 0, yoga: 1 });
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it.each([
    ['refused by a parameter check', JSON.stringify({ query: DASHBOARD, variables: {}, unknown: 1 })],
    ['with errors from its one execution', JSON.stringify({ query: DASHBOARD, variables: { q: 'ferncastle', jurisdiction: 7 } })],
  ])('hands Yoga the parameters it read: a request %s has its body parsed once', async (_, body) => {
    const headers = { ...JSON_POST, accept: 'application/json' };
    const expected = await bothAnswer(body, headers);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const answer = await send(stack.gateway.url, {
        method: 'POST',
        path: '/graphql',
        headers: { 'x-request-id': 'direct-test', ...headers },
        body,
      });
      expect(answer.text).toBe(expected.text);
      expect(parse.mock.calls.filter(([text]) => text === body)).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
  });

  it.each([
    ['a batch', JSON.stringify([{ query: DASHBOARD, variables: { q: 'ferncastle', jurisdiction: 'GB' } }]), JSON_POST],
    ['a body that is not JSON', '{"query": ', JSON_POST],
    ['a GraphQL body', DASHBOARD.replace('$q: String!', '$q: String! = "ferncastle"'), { 'content-type': 'application/graphql' }],
    // Yoga reads it as a GraphQL document (a syntax error); a lane that looked at the bytes alone would run it.
    ['a JSON body sent as a GraphQL body', JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'application/graphql' }],
    ['an event stream', JSON.stringify({ query: '{ __typename }' }), { ...JSON_POST, accept: 'text/event-stream' }],
  ])('does not take %s', async (_, body, headers) => {
    await bothAnswer(body, headers);
    expect(writtenBy).toEqual({ direct: 0, yoga: 0 });
  });
});
