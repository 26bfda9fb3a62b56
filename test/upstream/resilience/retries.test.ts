import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { TOKEN_BACKOFF_BASE_MS } from '../../../src/upstream/token-manager.js';
import { errorCodes } from '../../support/answers.js';
import { manualClock } from '../../support/clock.js';
import { startStack, type Stack } from '../../support/stack.js';
import { freshSearch } from '../../support/searches.js';

let stack: Stack;
/** Every backoff the gateway waited out since the test began; it waits none of them for real. */
const backoffs: number[] = [];

beforeAll(async () => {
  stack = await startStack({
    sleep: async (ms) => {
      backoffs.push(ms);
    },
    // A breaker that never opens keeps each test's calls its own.
    gateway: { upstreamRetries: 2, upstreamRetryBaseMs: 10, upstreamBreakerFailures: 1_000, upstreamHeadersTimeoutMs: 300 },
  });
});
afterAll(() => stack.close());
beforeEach(() => {
  stack.lookup.counters.reset();
  backoffs.length = 0;
});
afterEach(() => {
  stack.lookup.knobs.clearFaults();
  stack.lookup.knobs.searchLatencyMs = 0;
});

/** The answer the gateway gives with the upstream healthy. */
async function healthyAnswer(variables: { q: string; jurisdiction: string }) {
  const { body } = await stack.execute(DashboardSearchDocument, variables);
  expect(body.errors).toBeUndefined();
  return body;
}

describe('retries of a failed search', () => {
  it('retries a burst of 5xx and answers normally once it passes: 3 calls, no more', async () => {
    const search = freshSearch();
    stack.lookup.knobs.failSearch({ status: 503 }, 1);
    stack.lookup.knobs.failSearch({ status: 502 }, 1);
    const { body } = await stack.execute(DashboardSearchDocument, search);
    expect(body.errors).toBeUndefined();
    expect(stack.lookup.counters.searchRequests).toBe(3);
    // Full jitter under a ceiling of the 10 ms base, doubled for the second retry.
    expect(backoffs).toHaveLength(2);
    expect(backoffs[0]).toBeLessThan(10);
    expect(backoffs[1]).toBeLessThan(20);
    stack.lookup.knobs.clearFaults();
    stack.lookup.counters.reset();
    expect(body).toEqual(await healthyAnswer(freshSearch()));
  });

  it('gives up after the configured retries with UPSTREAM_UNAVAILABLE, then recovers with one call', async () => {
    const search = freshSearch();
    stack.lookup.knobs.failSearch({ status: 500 }, 3);
    const { body } = await stack.execute(DashboardSearchDocument, search);
    expect(body.data).toBeNull();
    expect(errorCodes(body)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(stack.lookup.counters.searchRequests).toBe(3);

    await healthyAnswer(search);
    expect(stack.lookup.counters.searchRequests).toBe(4);
  });

  it('retries a dropped connection', async () => {
    stack.lookup.knobs.failSearch({ kind: 'drop-connection' }, 1);
    await healthyAnswer(freshSearch());
    expect(stack.lookup.counters.searchRequests).toBe(2);
  });

  // Longer than the backoff each status gets without Retry-After (429: from 1 s; 5xx: from the 10 ms base here).
  it.each([
    [429, '3', 3_000],
    [503, '2', 2_000],
  ])('honours Retry-After on a %i', async (status, retryAfter, waitedMs) => {
    stack.lookup.knobs.failSearch({ status, headers: { 'retry-after': retryAfter } }, 1);
    await healthyAnswer(freshSearch());
    expect(backoffs).toEqual([waitedMs]);
    expect(stack.lookup.counters.searchRequests).toBe(2);
  });

  it('backs off at least 1 s after a 429 without Retry-After, as the upstream advises', async () => {
    stack.lookup.knobs.failSearch({ status: 429 }, 1);
    await healthyAnswer(freshSearch());
    expect(backoffs).toHaveLength(1);
    expect(backoffs[0]).toBeGreaterThanOrEqual(1_000);
    expect(backoffs[0]).toBeLessThan(2_000);
    expect(stack.lookup.counters.searchRequests).toBe(2);
  });

  it('does not retry when Retry-After reaches past the deadline: UPSTREAM_RATE_LIMITED at once', async () => {
    stack.lookup.knobs.failSearch({ status: 429, headers: { 'retry-after': '120' } }, 1);
    const { body } = await stack.execute(DashboardSearchDocument, freshSearch());
    expect(errorCodes(body)).toEqual(['UPSTREAM_RATE_LIMITED']);
    expect(backoffs).toEqual([]);
    expect(stack.lookup.counters.searchRequests).toBe(1);
    await healthyAnswer(freshSearch());
  });

  it.each([
    ['a 400', { status: 400, body: '{"message":"bad q"}' }, 'UPSTREAM_REJECTED_QUERY'],
    ['malformed JSON', { kind: 'malformed-json' as const }, 'UPSTREAM_BAD_RESPONSE'],
    ['a body without results', { kind: 'wrong-shape' as const }, 'UPSTREAM_BAD_RESPONSE'],
    ['a timeout', { kind: 'hang' as const }, 'UPSTREAM_TIMEOUT'],
  ])('never retries %s', async (_name, fault, code) => {
    stack.lookup.knobs.failSearch(fault, 1);
    const { body } = await stack.execute(DashboardSearchDocument, freshSearch());
    expect(errorCodes(body)).toEqual([code]);
    expect(stack.lookup.counters.searchRequests).toBe(1);
    await healthyAnswer(freshSearch());
    expect(stack.lookup.counters.searchRequests).toBe(2);
  });

  it('never retries a failing token endpoint: one token call, no search', async () => {
    const clock = manualClock();
    const fresh = await startStack({ clock, gateway: { upstreamRetries: 2, upstreamRetryBaseMs: 10 } });
    try {
      fresh.lookup.knobs.failToken({ status: 503 }, 1);
      const { body } = await fresh.execute(DashboardSearchDocument, freshSearch());
      expect(errorCodes(body)).toEqual(['UPSTREAM_UNAVAILABLE']);
      expect(fresh.lookup.counters.tokenRequests).toBe(1);
      expect(fresh.lookup.counters.searchRequests).toBe(0);

      // The token backoff holds the next token request back for its first step.
      clock.advance(TOKEN_BACKOFF_BASE_MS);
      const recovered = await fresh.execute(DashboardSearchDocument, freshSearch());
      expect(recovered.body.errors).toBeUndefined();
      expect(fresh.lookup.counters.tokenRequests).toBe(2);
    } finally {
      await fresh.close();
    }
  });
});
