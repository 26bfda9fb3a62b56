import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.js';
import { startFleet, type Fleet } from '../support/fleet.js';
import { freshSearch } from '../support/searches.js';
import { eventually } from '../support/within.js';
import { normalizeSearchQuery } from '../../src/upstream/search-query.js';
import { windowKey } from '../../src/upstream/window-size.js';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** redis-cli against the fleet's Redis, one command, its output. */
function redisCli(target: Fleet, ...args: string[]): string {
  const { port } = new URL(target.redis.url);
  return execFileSync('redis-cli', ['-p', port, ...args], { encoding: 'utf8' });
}

/** The stored windows' keys (not their locks). */
function windowKeys(target: Fleet): string[] {
  return redisCli(target, '--scan', '--pattern', 'csg:{w:*')
    .split('\n')
    .filter((key) => key !== '' && !key.endsWith(':lock'));
}

describe('search windows shared by a fleet on one Redis', () => {
  it('300 concurrent identical never-seen searches over three instances: one upstream search, one token call', async () => {
    // Slow enough that every instance misses before the first fetch is done.
    fleet = await startFleet({ lookup: { searchLatencyMs: 200 }, gateway: { rateLimitPerMinute: 0 } });
    // A fresh fleet has seen no search: this one is new to all three.
    const search = { q: 'Holdings', jurisdiction: 'GB' };
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => fleet!.search(i % 3, search)));
    expect(answers.filter((answer) => answer.status !== 200 || answer.body.errors !== undefined)).toEqual([]);
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body.data)))).toHaveProperty('size', 1);
    expect(answers[0]?.body.data?.searchCompanies.nodes).toHaveLength(5);
    expect(fleet.logs.flat().filter((line) => line.includes('Redis unavailable'))).toEqual([]);
    expect(fleet.lookup.counters).toMatchObject({ searchRequests: 1, tokenRequests: 1 });
  });

  it('300 distinct searches, each asked of all three instances at once: at most 1.02 upstream searches per search', async () => {
    // One client asks everything: its rate limit is not what is measured.
    fleet = await startFleet({ gateway: { rateLimitPerMinute: 0 } });
    const searches = 300;
    // Ten distinct searches at a time, each asked of the three instances together: thirty requests in flight.
    for (let first = 0; first < searches; first += 10) {
      const batch = Array.from({ length: 10 }, (_, i) => ({ q: `Holdings ${first + i}`, jurisdiction: 'GB' }));
      const answers = await Promise.all(batch.flatMap((search) => [0, 1, 2].map((index) => fleet!.search(index, search))));
      expect(answers.filter((answer) => answer.status !== 200 || answer.body.errors !== undefined)).toEqual([]);
    }
    expect(fleet.lookup.counters.searchRequests).toBeGreaterThanOrEqual(searches);
    expect(fleet.lookup.counters.searchRequests).toBeLessThanOrEqual(searches * 1.02);
    expect(fleet.lookup.counters.tokenRequests).toBe(1);
    expect(fleet.logs.flat().filter((line) => line.includes('Redis unavailable'))).toEqual([]);
  }, 120_000);

  it("judges freshness on Redis's clock: an instance whose clock is 20 s ahead makes no window fresh for the others past its TTL", async () => {
    // One clock for Redis and two instances; the first instance's runs 20 s ahead of it.
    const clock = manualClock();
    const ttlMs = 60_000;
    fleet = await startFleet({
      clock,
      instanceClocks: [() => clock() + 20_000],
      // Past its TTL a window is fetched anew before it is answered: no stale answer while it is.
      gateway: { cacheTtlMs: ttlMs, cacheStaleWhileRevalidateMs: 0 },
    });
    const search = { q: 'Holdings', jurisdiction: 'GB' };
    expect((await fleet.search(0, search)).body.data?.searchCompanies.stale).toBe(false);
    expect((await fleet.search(1, search)).body.data?.searchCompanies.stale).toBe(false);
    clock.advance(ttlMs - 1);
    expect((await fleet.search(2, search)).body.data?.searchCompanies.stale).toBe(false);
    expect(fleet.lookup.counters.searchRequests).toBe(1);
    // Past the TTL on the one clock, the second instance fetches anew; the third finds that fresh window.
    clock.advance(2);
    expect((await fleet.search(1, search)).body.data?.searchCompanies.stale).toBe(false);
    expect(fleet.lookup.counters.searchRequests).toBe(2);
    expect((await fleet.search(2, search)).body.errors).toBeUndefined();
    expect(fleet.lookup.counters.searchRequests).toBe(2);
  });

  it('serves page 2 on another instance than page 1 without an upstream call', async () => {
    fleet = await startFleet();
    const search = { q: 'Holdings', jurisdiction: 'GB' };
    const first = await fleet.search(0, search, 2);
    const cursor = first.body.data?.searchCompanies.pageInfo.endCursor;
    expect(cursor).toEqual(expect.any(String));
    fleet.lookup.counters.reset();
    const second = await fleet.search(1, { ...search, after: cursor! }, 2);
    expect(second.body.errors).toBeUndefined();
    expect(second.body.data?.searchCompanies.nodes).toHaveLength(2);
    expect(second.body.data?.searchCompanies.nodes).not.toEqual(first.body.data?.searchCompanies.nodes);
    expect(fleet.lookup.counters).toMatchObject({ searchRequests: 0, tokenRequests: 0 });
  });

  it('reads a stored window that does not parse, or is for another search, as a miss', async () => {
    const started = await startFleet();
    fleet = started;
    const garbled = freshSearch();
    const other = freshSearch();
    // Each published once its answer is on its way: looked for until it is there.
    await fleet.search(0, garbled);
    const garbledKey = await eventually(() => {
      const [key] = windowKeys(started);
      expect(key).toBeDefined();
      return key;
    });
    await fleet.search(0, other);
    const otherKey = await eventually(() => {
      const key = windowKeys(started).find((found) => found !== garbledKey);
      expect(key).toBeDefined();
      return key!;
    });
    redisCli(fleet, 'SET', garbledKey!, '{"key": "not this one", "slots": [');
    // A well-formed window, stored under another search's key.
    redisCli(fleet, 'COPY', garbledKey!, otherKey, 'REPLACE');
    redisCli(fleet, 'SET', garbledKey!, '{"slots": 3}');
    fleet.lookup.counters.reset();
    expect((await fleet.search(1, garbled)).body.errors).toBeUndefined();
    expect((await fleet.search(2, other)).body.errors).toBeUndefined();
    expect(fleet.lookup.counters.searchRequests).toBe(2);
    // Fetched anew and stored again: an instance that never asked for it finds it.
    fleet.lookup.counters.reset();
    await fleet.search(2, garbled);
    expect(fleet.lookup.counters.searchRequests).toBe(0);
  });

  it('calls the upstream itself, within its deadline, when the instance holding a window lock died holding it', async () => {
    fleet = await startFleet({ gateway: { requestDeadlineMs: 2_000 } });
    const search = { q: 'Holdings', jurisdiction: 'GB' };
    const digest = createHash('sha256')
      .update(windowKey(normalizeSearchQuery(search.q, search.jurisdiction), 0))
      .digest('base64url');
    // As a crashed instance leaves it: held for a minute, never released.
    redisCli(fleet, 'SET', `csg:w:${digest}:lock`, 'crashed-instance', 'PX', '60000');
    const answer = await fleet.search(1, search);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.searchCompanies.nodes).toHaveLength(5);
    expect(fleet.lookup.counters.searchRequests).toBe(1);
  });
});
