import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.js';
import { startFleet, type Fleet } from '../support/fleet.js';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

describe('the upstream call budget of a fleet on one Redis', () => {
  it('holds across the three instances, token call included: stale data where cached, else UPSTREAM_RATE_LIMITED', async () => {
    // Three calls a minute (one every 20 s, far longer than the test): a token and two searches. A window is stale
    // once the clock moves 1 ms, and may be served stale if the upstream cannot be asked for an hour.
    const clock = manualClock();
    fleet = await startFleet({ clock, gateway: { upstreamMaxCallsPerMinute: 3, cacheTtlMs: 1, cacheStaleWhileRevalidateMs: 0 } });
    const first = await fleet.search(0, { q: 'Holdings', jurisdiction: 'GB' });
    expect(first.body.errors).toBeUndefined();
    expect((await fleet.search(1, { q: 'Trading', jurisdiction: 'GB' })).body.errors).toBeUndefined();
    expect(fleet.lookup.counters).toMatchObject({ tokenRequests: 1, searchRequests: 2 });

    const uncached = await fleet.search(2, { q: 'Services', jurisdiction: 'GB' });
    expect(uncached.body.data).toBeNull();
    expect(uncached.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_RATE_LIMITED');

    clock.advance(2);
    const stale = await fleet.search(2, { q: 'Holdings', jurisdiction: 'GB' });
    expect(stale.body.errors).toBeUndefined();
    expect(stale.body.data?.searchCompanies).toMatchObject({ stale: true, nodes: first.body.data?.searchCompanies.nodes });
    expect(stale.body.extensions?.warnings?.map((warning) => warning.code)).toEqual(['STALE_DATA']);
    expect(fleet.lookup.counters).toMatchObject({ tokenRequests: 1, searchRequests: 2 });
  });
});
