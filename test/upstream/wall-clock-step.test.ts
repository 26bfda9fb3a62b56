/**
 * Ages in the process are read on a clock that never steps back
 * (upstream/resilience/clock.ts), and only what clients are shown on the
 * wall clock. Found by the review of issue 35: with a 3 s TTL and the wall
 * clock stepped back 60 s, a window fetched 5.4 s earlier was served
 * `stale: false` with no upstream call. Here the gateway runs on its own
 * clocks, with Date and performance faked: the test steps the wall clock back
 * while the monotonic one moves on, and nothing waits on either.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { allFixtureCompanies } from '../../src/lookup-service/index.js';
import { SearchCompaniesDocument } from '../generated/graphql.js';
import { startStack, type Stack } from '../support/stack.js';
import { eventually } from '../support/within.js';

const TTL_MS = 3_000;
const SEARCH = { q: 'Zebra Quantum', jurisdiction: 'GB' };

let stack: Stack;
beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date', 'performance'] });
  // The response cache too: an answer is kept no longer than its data is fresh.
  stack = await startStack({
    lookup: { companies: allFixtureCompanies },
    gateway: { cacheTtlMs: TTL_MS, cacheStaleWhileRevalidateMs: 60_000, rateLimitPerMinute: 0 },
  });
});
afterEach(async () => {
  await stack?.close();
  vi.useRealTimers();
});

const search = async () => (await stack.execute(SearchCompaniesDocument, SEARCH)).body.data!.searchCompanies;

describe('a wall clock stepped back', () => {
  it('makes no window fresh again: past its TTL it is served stale and fetched anew, each dated by the wall clock', async () => {
    const firstFetch = new Date().toISOString();
    expect(await search()).toMatchObject({ stale: false, fetchedAt: firstFetch });

    vi.advanceTimersByTime(TTL_MS + 2_400);
    vi.setSystemTime(Date.now() - 60_000);
    const steppedBack = Date.now();
    // Within stale-while-revalidate: the old window at once, marked stale, with the time it was fetched.
    expect(await search()).toMatchObject({ stale: true, fetchedAt: firstFetch });
    await eventually(() => expect(stack.lookup.counters.searchesAnswered).toBe(2));

    // The refresh is dated by the wall clock as it now reads (vi.waitFor moves faked time on as it waits), before the
    // window it replaced.
    const refreshed = await eventually(async () => {
      const page = await search();
      expect(page.stale).toBe(false);
      return page;
    });
    expect(Date.parse(refreshed.fetchedAt)).toBeGreaterThanOrEqual(steppedBack);
    expect(Date.parse(refreshed.fetchedAt)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(refreshed.fetchedAt)).toBeLessThan(Date.parse(firstFetch));
  });

  it('holds no answer longer: one fresh a moment ago is not reused once its data is past its TTL', async () => {
    await search();
    vi.advanceTimersByTime(TTL_MS + 1);
    vi.setSystemTime(Date.now() - 60_000);
    expect(await search()).toMatchObject({ stale: true });
  });
});
