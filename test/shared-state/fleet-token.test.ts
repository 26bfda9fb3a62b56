import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.js';
import { startFleet, type Fleet } from '../support/fleet.js';
import { scrape } from '../support/metrics.js';
import { freshSearch } from '../support/searches.js';
import { SAFETY_MS, within } from '../support/within.js';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

describe('the service token of a fleet on one Redis', () => {
  it('is asked for once by three instances started together, and used by every instance', async () => {
    fleet = await startFleet();
    await Promise.all(fleet.gateways.map((gateway) => gateway.tokenAtStart));
    expect(fleet.lookup.counters.tokenRequests).toBe(1);
    for (const index of [0, 1, 2, 0, 1, 2]) {
      const answer = await fleet.search(index, freshSearch());
      expect(answer.body.errors).toBeUndefined();
    }
    expect(fleet.lookup.counters).toMatchObject({ tokenRequests: 1, searchRequests: 6 });
  });

  it('asked for at start before Redis serves the instances, waits for it: one token call for the fleet', async () => {
    // Redis out of reach as the instances open their stores: each starts not sharing, and asks for the token at start.
    fleet = await startFleet({ instances: 2, redisProxies: true, redisCutAtStart: true });
    expect(fleet.logs.flat().filter((line) => line.includes('Redis connected'))).toEqual([]);
    for (const proxy of fleet.proxies) proxy.restore();
    await within(Promise.all(fleet.gateways.map((gateway) => gateway.tokenAtStart)), SAFETY_MS, 'the tokens at start');
    expect(fleet.lookup.counters.tokenRequests).toBe(1);
    for (const index of [0, 1]) {
      expect(fleet.logs[index]!.filter((line) => line.includes('Redis connected; sharing'))).toHaveLength(1);
      expect((await fleet.search(index, freshSearch())).body.errors).toBeUndefined();
    }
    expect(fleet.lookup.counters.tokenRequests).toBe(1);
  });

  it('expiring under load on all three instances, is renewed with one token call', async () => {
    const clock = manualClock();
    fleet = await startFleet({ clock });
    for (const index of [0, 1, 2]) expect((await fleet.search(index, freshSearch())).body.errors).toBeUndefined();
    expect(fleet.lookup.counters.tokenRequests).toBe(1);
    // Past the longest lifetime a token is given (UPSTREAM_TOKEN_MAX_LIFETIME_MS, 1 h).
    clock.advance(2 * 3_600_000);
    const searches = Array.from({ length: 60 }, (_, i) => fleet!.search(i % 3, freshSearch()));
    const answers = await Promise.all(searches);
    expect(answers.filter((answer) => answer.body.errors !== undefined)).toEqual([]);
    expect(fleet.lookup.counters.tokenRequests).toBe(2);
  });

  it('refused by a search, is dropped and renewed once for the fleet, and an old token cannot drop the new one', async () => {
    fleet = await startFleet();
    for (const index of [0, 1, 2]) await fleet.search(index, freshSearch());
    expect(fleet.lookup.counters.tokenRequests).toBe(1);
    fleet.lookup.knobs.revokeTokens();
    // Each instance still holds the revoked token: each search is answered 401 once.
    for (const index of [1, 0, 2]) expect((await fleet.search(index, freshSearch())).body.errors).toBeUndefined();
    expect(fleet.lookup.counters.tokenRequests).toBe(2);
    expect(fleet.lookup.counters.searchRequests).toBe(3 + 3 * 2);
  });

  it('shares the refused-credentials cool-down', async () => {
    fleet = await startFleet();
    for (const index of [0, 1, 2]) await fleet.search(index, freshSearch());
    fleet.lookup.knobs.revokeTokens();
    fleet.lookup.knobs.failToken({ status: 401 }, Number.POSITIVE_INFINITY);
    fleet.lookup.counters.reset();
    for (const index of [0, 1, 2]) {
      const answer = await fleet.search(index, freshSearch());
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_AUTH_FAILED');
    }
    expect(fleet.lookup.counters.tokenRequests).toBe(1);
  });

  it('refused by a search after the upstream revoked it, is dropped and renewed, never taken for refused credentials', async () => {
    fleet = await startFleet({ instances: 2, redisProxies: true, gateway: { metricsPort: 0 } });
    const [a, b] = [0, 1];
    // Counted from when both share: on a busy host an instance may start before its first probe has passed.
    await within(
      Promise.all([a, b].map((index) => fleet!.logged(index, 'Redis connected; sharing'))),
      SAFETY_MS,
      'both instances to share',
    );
    const ok = async (index: number) => {
      const answer = await fleet!.search(index, freshSearch());
      expect(answer.body.errors).toBeUndefined();
    };
    await ok(a);
    await ok(b);
    expect(fleet.lookup.counters.tokenRequests).toBe(1);

    // Redis is away for B (its network cut): it goes on alone.
    fleet.proxies[b]!.cut();
    await within(fleet.logged(b, 'Redis unavailable'), SAFETY_MS, 'B to find Redis away');
    // The upstream revokes every token (as a restart of it would): B renews alone, A renews for the fleet.
    fleet.lookup.knobs.revokeTokens();
    await ok(b);
    await ok(a);
    expect(fleet.lookup.counters.tokenRequests).toBe(3);
    fleet.proxies[b]!.restore();
    await within(fleet.logged(b, 'Redis is back'), SAFETY_MS, 'B to find Redis back');

    // Revoked again: B's own token is refused, then the fleet's, older one it reads from Redis. That one is no token the
    // endpoint has just issued: it is dropped from Redis and renewed, once, and A takes the new one from Redis.
    fleet.lookup.knobs.revokeTokens();
    await ok(b);
    await ok(a);
    expect(fleet.lookup.counters.tokenRequests).toBe(4);
    for (const index of [a, b]) {
      expect(fleet.logs[index]!.filter((line) => line.includes('refused the client credentials'))).toEqual([]);
      const series = (await scrape(fleet.gateways[index]!.metricsUrl!)).series;
      const refused = [...series].filter(([name, value]) => name.includes('result="credentials_refused"') && value > 0);
      expect(refused).toEqual([]);
    }
  });
});
