import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.js';
import { SEARCH_DOCUMENT, startFleet, type Fleet } from '../support/fleet.js';
import { SAFETY_MS, within } from '../support/within.js';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** On a busy host an instance may start before its first probe has passed: each would count in its own bucket. */
function everyInstanceShares(target: Fleet): Promise<unknown> {
  return within(Promise.all([0, 1, 2].map((i) => target.logged(i, 'Redis connected; sharing'))), SAFETY_MS, 'every instance to share');
}

const SEARCH = { query: SEARCH_DOCUMENT, variables: { q: 'Holdings', jurisdiction: 'GB', pageSize: 1 } };

describe('per-client rate limits of a fleet on one Redis', () => {
  it('let the burst and the rate through for the three instances together, not three times over', async () => {
    // One request every 10 s sustained; the clock (the instances' and Redis's) stands still until the test moves it.
    const clock = manualClock();
    fleet = await startFleet({ clock, gateway: { rateLimitPerMinute: 6, rateLimitBurst: 5 } });
    await everyInstanceShares(fleet);
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => fleet!.post(i % 3, SEARCH)));
    expect(burst.filter((answer) => answer.status === 200)).toHaveLength(5);
    const refused = burst.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(25);
    expect(new Set(refused.map((answer) => answer.headers['retry-after']))).toEqual(new Set(['10']));
    // 10 s later, one more request's worth has come back, for the whole fleet.
    clock.advance(10_000);
    const refilled = await Promise.all(Array.from({ length: 6 }, (_, i) => fleet!.post(i % 3, SEARCH)));
    expect(refilled.filter((answer) => answer.status === 200)).toHaveLength(1);
  });

  it('charge a batch as a whole against the fleet bucket', async () => {
    fleet = await startFleet({ gateway: { rateLimitPerMinute: 6, rateLimitBurst: 5, batchingLimit: 10 } });
    await everyInstanceShares(fleet);
    expect((await fleet.post(0, SEARCH)).status).toBe(200);
    expect((await fleet.post(0, SEARCH)).status).toBe(200);
    // Three left for the fleet: a batch of four is refused as a whole (its first operation, taken before the body is
    // read, is spent, as on one instance), and a batch of two takes the last two.
    expect(
      (
        await fleet.post(
          1,
          Array.from({ length: 4 }, () => SEARCH),
        )
      ).status,
    ).toBe(429);
    expect(
      (
        await fleet.post(
          2,
          Array.from({ length: 2 }, () => SEARCH),
        )
      ).status,
    ).toBe(200);
    expect((await fleet.post(0, SEARCH)).status).toBe(429);
  });
});
