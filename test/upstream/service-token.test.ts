import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DashboardSearchDocument, SearchCompaniesDocument } from '../generated/graphql.js';
import { TOKEN_BACKOFF_BASE_MS } from '../../src/upstream/token-manager.js';
import { manualClock, type ManualClock } from '../support/clock.js';
import { startStack, type Stack } from '../support/stack.js';
import { eventually } from '../support/within.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateway: { cacheTtlMs: 60_000 } });
});
afterAll(() => stack.close());
beforeEach(() => {
  stack.lookup.counters.reset();
  stack.lookup.knobs.clearFaults();
});

describe('one service token', () => {
  it('makes 1 search call and 1 token call for 100 concurrent identical searches', async () => {
    // The 100 searches come on 100 connections from this one address.
    const fresh = await startStack({ lookup: { searchLatencyMs: 50 }, gateway: { maxConnectionsPerAddress: 0 } });
    try {
      const responses = await Promise.all(
        Array.from({ length: 100 }, () => fresh.execute(DashboardSearchDocument, { q: 'holdings', jurisdiction: 'GB' })),
      );
      expect(responses.every((response) => response.body.errors === undefined)).toBe(true);
      expect(new Set(responses.map((response) => JSON.stringify(response.body))).size).toBe(1);
      expect(fresh.lookup.counters.searchRequests).toBe(1);
      expect(fresh.lookup.counters.tokenRequests).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('reuses the token across different searches', async () => {
    for (const q of ['token reuse one', 'token reuse two', 'token reuse three']) {
      await stack.execute(DashboardSearchDocument, { q, jurisdiction: 'GB' });
    }
    expect(stack.lookup.counters.searchRequests).toBe(3);
    expect(stack.lookup.counters.tokenRequests).toBe(1);
  });

  it('drops a token refused by search and retries that search once with a new token', async () => {
    await stack.execute(DashboardSearchDocument, { q: 'before revoke', jurisdiction: 'GB' });
    stack.lookup.counters.reset();
    stack.lookup.knobs.revokeTokens();
    const { body } = await stack.execute(DashboardSearchDocument, { q: 'after revoke', jurisdiction: 'GB' });
    expect(body.errors).toBeUndefined();
    expect(stack.lookup.counters.searchRequests).toBe(2);
    expect(stack.lookup.counters.tokenRequests).toBe(1);
  });

  it('gives up after one retry when search refuses the new token too', async () => {
    stack.lookup.knobs.failSearch({ status: 401, body: '{"message":"Invalid token"}' }, 2);
    const { body } = await stack.execute(DashboardSearchDocument, { q: 'refused twice', jurisdiction: 'GB' });
    expect(body.errors![0]!.extensions).toEqual({ requestId: expect.any(String), code: 'UPSTREAM_AUTH_FAILED' });
    expect(stack.lookup.counters.searchRequests).toBe(2);
    expect(stack.lookup.counters.tokenRequests).toBe(1);
  });

  it('renews a token that expires mid-traffic once for all waiting requests', async () => {
    const clock = manualClock();
    const shortLived = await startStack({ clock, lookup: { tokenLifetimeSeconds: 1 }, gateway: { upstreamTokenMinLifetimeMs: 1_000 } });
    try {
      const burst = (round: number) =>
        Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            shortLived.execute(DashboardSearchDocument, { q: `expiry ${round} ${i % 5}`, jurisdiction: 'GB' }),
          ),
        );
      const before = await burst(1);
      expect(shortLived.lookup.counters.tokenRequests).toBe(1);
      clock.advance(1_100);
      const after = await burst(2);
      expect([...before, ...after].every((response) => response.body.errors === undefined)).toBe(true);
      expect(shortLived.lookup.counters.tokenRequests).toBe(2);
      expect(shortLived.lookup.counters.searchRequests).toBe(10);
    } finally {
      await shortLived.close();
    }
  });

  it('never puts the secret or the token in a response or a log line', async () => {
    stack.logs.length = 0;
    stack.lookup.knobs.failSearch({ status: 503 });
    const failed = await stack.post({ query: '{ searchCompanies(q: "secret scan", jurisdiction: "GB") { totalCount } }' });
    const ok = await stack.execute(SearchCompaniesDocument, { q: 'secret scan', jurisdiction: 'GB' });
    const seen = [failed.text, JSON.stringify(ok.body), ...stack.logs].join('\n');
    expect(seen).not.toContain(stack.lookup.credentials.clientSecret);
    for (const token of stack.lookup.knobs.issuedTokens()) expect(seen).not.toContain(token);
    expect(stack.logs.length).toBeGreaterThan(0);
  });
});

/**
 * A 20 s token is renewed 2 s before it expires; these tests move the
 * gateway's clock 18.5 s on, inside that window, and the window is longer
 * than the first step of the token backoff.
 */
const LIFETIME_SECONDS = 20;
const INSIDE_REFRESH_WINDOW_MS = 18_500;

/** A stack issuing 20 s tokens, whose gateway reads time from `clock`, with its first token fetched. */
async function withFirstToken(clock: ManualClock): Promise<Stack> {
  const fresh = await startStack({
    clock,
    lookup: { tokenLifetimeSeconds: LIFETIME_SECONDS },
  });
  const { body } = await fresh.execute(DashboardSearchDocument, { q: 'first token', jurisdiction: 'GB' });
  expect(body.errors).toBeUndefined();
  return fresh;
}

describe.concurrent('renewal before expiry', () => {
  it('renews early in the background while searches go on with the current token', async () => {
    const clock = manualClock();
    const early = await withFirstToken(clock);
    try {
      clock.advance(INSIDE_REFRESH_WINDOW_MS);
      early.lookup.knobs.tokenLatencyMs = 200;
      const during = await early.execute(DashboardSearchDocument, { q: 'early two', jurisdiction: 'GB' });
      expect(during.body.errors).toBeUndefined();
      expect(early.lookup.counters.tokenRequests).toBe(2);
      expect(early.lookup.counters.tokensIssued).toBe(1);
      await eventually(() => expect(early.lookup.counters.tokensIssued).toBe(2));
      clock.advance(LIFETIME_SECONDS * 1_000 - INSIDE_REFRESH_WINDOW_MS + 100);
      const after = await early.execute(DashboardSearchDocument, { q: 'early three', jurisdiction: 'GB' });
      expect(after.body.errors).toBeUndefined();
      expect(early.lookup.counters.tokenRequests).toBe(2);
      expect(early.lookup.counters.searchRequests).toBe(3);
    } finally {
      await early.close();
    }
  });

  /** A stack whose token is inside its refresh window, with a token endpoint that now answers 503, after `tokenLatencyMs`. */
  async function insideRefreshWindowWithFailingRenewal(clock: ManualClock, tokenLatencyMs: number): Promise<Stack> {
    const failing = await withFirstToken(clock);
    failing.lookup.knobs.failToken({ status: 503 }, Infinity);
    failing.lookup.knobs.tokenLatencyMs = tokenLatencyMs;
    clock.advance(INSIDE_REFRESH_WINDOW_MS);
    return failing;
  }

  it('keeps the valid token and waits out the backoff before retrying when early renewal fails', async () => {
    const clock = manualClock();
    const failing = await insideRefreshWindowWithFailingRenewal(clock, 0);
    try {
      const responses = [];
      for (let i = 0; i < 10; i++) {
        responses.push(await failing.execute(DashboardSearchDocument, { q: `failing ${i}`, jurisdiction: 'GB' }));
      }
      expect(responses.every((response) => response.body.errors === undefined)).toBe(true);
      expect(failing.lookup.counters.tokenRequests).toBe(2);
      expect(failing.logs.map((line) => JSON.parse(line))).toContainEqual(
        expect.objectContaining({
          level: 40,
          code: 'UPSTREAM_UNAVAILABLE',
          msg: 'Early renewal of the service token failed; keeping the current token',
        }),
      );

      clock.advance(TOKEN_BACKOFF_BASE_MS);
      const retried = await failing.execute(DashboardSearchDocument, { q: 'failing after backoff', jurisdiction: 'GB' });
      expect(retried.body.errors).toBeUndefined();
      await eventually(() => expect(failing.lookup.counters.tokenRequests).toBe(3));
    } finally {
      await failing.close();
    }
  });

  it('warns once about a failed early renewal, however many searches ran while it was under way', async () => {
    const clock = manualClock();
    const failing = await insideRefreshWindowWithFailingRenewal(clock, 200);
    try {
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => failing.execute(DashboardSearchDocument, { q: `slow failing ${i}`, jurisdiction: 'GB' })),
      );
      expect(responses.every((response) => response.body.errors === undefined)).toBe(true);
      const warnings = () =>
        failing.logs
          .map((line) => JSON.parse(line) as { msg?: string })
          .filter(({ msg }) => msg === 'Early renewal of the service token failed; keeping the current token');
      await eventually(() => expect(warnings().length).toBeGreaterThan(0));
      expect(warnings()).toHaveLength(1);
      expect(failing.lookup.counters.tokenRequests).toBe(2);
    } finally {
      await failing.close();
    }
  });
});
