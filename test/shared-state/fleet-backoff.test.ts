import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.js';
import { startFleet, type Fleet } from '../support/fleet.js';
import { freshSearch } from '../support/searches.js';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** The error code of a search asked of instance `index`, or 'ok'. */
async function outcome(target: Fleet, index: number): Promise<string> {
  const answer = await target.search(index, freshSearch());
  expect(answer.status).toBe(200);
  return answer.body.errors?.[0]?.extensions?.code ?? 'ok';
}

describe('upstream back-off shared by a fleet on one Redis', () => {
  it('holds every instance back for the Retry-After of a 429 one of them got', async () => {
    const clock = manualClock();
    fleet = await startFleet({ clock, gateway: { upstreamRetries: 0 } });
    for (const index of [0, 1, 2]) expect(await outcome(fleet, index)).toBe('ok');
    fleet.lookup.knobs.failSearch({ status: 429, headers: { 'retry-after': '30' } }, 1);
    expect(await outcome(fleet, 0)).toBe('UPSTREAM_RATE_LIMITED');
    fleet.lookup.counters.reset();
    expect(await outcome(fleet, 1)).toBe('UPSTREAM_RATE_LIMITED');
    expect(await outcome(fleet, 2)).toBe('UPSTREAM_RATE_LIMITED');
    expect(fleet.lookup.counters).toMatchObject({ searchRequests: 0, tokenRequests: 0 });
    clock.advance(30_000);
    expect(await outcome(fleet, 1)).toBe('ok');
    expect(await outcome(fleet, 2)).toBe('ok');
    expect(fleet.lookup.counters.searchRequests).toBe(2);
  });

  it("holds every instance back while one instance's circuit breaker is open", async () => {
    const clock = manualClock();
    fleet = await startFleet({ clock, gateway: { upstreamRetries: 0, upstreamBreakerFailures: 2, upstreamBreakerCooldownMs: 10_000 } });
    for (const index of [0, 1, 2]) expect(await outcome(fleet, index)).toBe('ok');
    fleet.lookup.knobs.failSearch({ status: 503 }, 2);
    expect(await outcome(fleet, 0)).toBe('UPSTREAM_UNAVAILABLE');
    expect(await outcome(fleet, 0)).toBe('UPSTREAM_UNAVAILABLE');
    fleet.lookup.counters.reset();
    expect(await outcome(fleet, 1)).toBe('UPSTREAM_UNAVAILABLE');
    expect(await outcome(fleet, 2)).toBe('UPSTREAM_UNAVAILABLE');
    expect(fleet.lookup.counters.searchRequests).toBe(0);
    clock.advance(10_000);
    expect(await outcome(fleet, 1)).toBe('ok');
    expect(fleet.lookup.counters.searchRequests).toBe(1);
  });
});
