import { afterEach, describe, expect, it } from 'vitest';
import { SEARCH_DOCUMENT, startFleet, type Fleet } from '../support/fleet.js';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

const SEARCH = { query: SEARCH_DOCUMENT, variables: { q: 'Holdings', jurisdiction: 'GB', pageSize: 1 } };

describe('per-client rate limits of a fleet on one Redis', () => {
  it('let the burst and the rate through for the three instances together, not three times over', async () => {
    // One request every 10 s sustained: the run takes a fraction of that.
    fleet = await startFleet({ gateway: { rateLimitPerMinute: 6, rateLimitBurst: 5 } });
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => fleet!.post(i % 3, SEARCH)));
    const refilled = Math.floor((performance.now() - started) / 10_000);
    const allowed = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(allowed.length + refused.length).toBe(30);
    expect(allowed.length).toBeGreaterThanOrEqual(5);
    expect(allowed.length).toBeLessThanOrEqual(5 + refilled);
    expect(Number(refused[0]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused[0]?.headers['retry-after'])).toBeLessThanOrEqual(10);
  });

  it('charge a batch as a whole against the fleet bucket', async () => {
    fleet = await startFleet({ gateway: { rateLimitPerMinute: 6, rateLimitBurst: 5, batchingLimit: 10 } });
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
