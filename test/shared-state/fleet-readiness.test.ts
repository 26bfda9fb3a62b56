import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../support/fleet.js';
import { send } from '../support/http.js';
import { changes, scrape } from '../support/metrics.js';
import { eventually, SAFETY_MS, within } from '../support/within.js';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** How many windows the fleet's Redis holds (not their locks). */
function storedWindows(target: Fleet): number {
  const { port } = new URL(target.redis.url);
  return execFileSync('redis-cli', ['-p', port, '--scan', '--pattern', 'csg:w:*'], { encoding: 'utf8' })
    .split('\n')
    .filter((key) => key !== '' && !key.endsWith(':lock')).length;
}

async function readiness(index: number): Promise<{ status: number; body: { status: string; redis?: string } }> {
  const answer = await send(`${fleet!.gateways[index]!.url}/ready`);
  return { status: answer.status, body: JSON.parse(answer.text) as { status: string; redis?: string } };
}

describe('readiness and metrics of a fleet on Redis', () => {
  it('report Redis connected, then unavailable while it is away, without failing readiness, then connected again', async () => {
    fleet = await startFleet({ instances: 1, gateway: { metricsPort: 0 } });
    const metricsUrl = fleet.gateways[0]!.metricsUrl!;
    await within(fleet.logged(0, 'Redis connected'), SAFETY_MS, 'the instance to connect to Redis');
    expect(await readiness(0)).toMatchObject({ status: 200, body: { status: 'ready', redis: 'connected' } });
    expect((await scrape(metricsUrl)).series.get('csg_redis_sharing')).toBe(1);

    await fleet.redis.kill();
    // A request asks Redis, and finding it gone, the instance goes on alone.
    expect((await fleet.search(0, { q: 'Holdings', jurisdiction: 'GB' })).status).toBe(200);
    await within(fleet.logged(0, 'Redis unavailable'), SAFETY_MS, 'the instance to see Redis gone');
    expect(await readiness(0)).toMatchObject({ status: 200, body: { status: 'ready', redis: 'unavailable' } });
    expect((await scrape(metricsUrl)).series.get('csg_redis_sharing')).toBe(0);

    await fleet.redis.restart();
    await within(fleet.logged(0, 'Redis is back'), SAFETY_MS, 'the instance to see Redis back');
    expect(await readiness(0)).toMatchObject({ status: 200, body: { status: 'ready', redis: 'connected' } });
    expect((await scrape(metricsUrl)).series.get('csg_redis_sharing')).toBe(1);
  });
});

describe('metrics of a fleet on Redis', () => {
  it('count window lookups in the fleet store, and calls held back by the spent call budget', async () => {
    fleet = await startFleet({
      instances: 2,
      gateway: { metricsPort: 0, responseCache: false, upstreamMaxCallsPerMinute: 2, rateLimitPerMinute: 0 },
    });
    const scrapes = () => Promise.all(fleet!.gateways.map((gateway) => scrape(gateway.metricsUrl!)));
    const series = [
      'csg_cache_lookups_total{level="redis",result="hit"}',
      'csg_cache_lookups_total{level="redis",result="miss"}',
      'csg_upstream_calls_held_back_total{reason="budget_spent"}',
    ];
    const before = await scrapes();

    // Instance 0 misses in the store and fetches (a token call and a search: the whole budget); instance 1 finds the window there.
    expect((await fleet.search(0, { q: 'Holdings', jurisdiction: 'GB' })).status).toBe(200);
    // Published once its answer is on its way: instance 1 asks once it is in Redis.
    const started = fleet;
    await eventually(() => expect(storedWindows(started)).toBe(1));
    expect((await fleet.search(1, { q: 'Holdings', jurisdiction: 'GB' })).status).toBe(200);
    // A new search finds nothing cached, and the budget has no call left for it.
    const spent = await fleet.search(1, { q: 'Trading', jurisdiction: 'GB' });
    expect(spent.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_RATE_LIMITED');

    const after = await scrapes();
    expect(after.map((scrape, i) => changes(before[i]!, scrape, series))).toEqual([
      { [series[0]!]: 0, [series[1]!]: 1, [series[2]!]: 0 },
      { [series[0]!]: 1, [series[1]!]: 1, [series[2]!]: 1 },
    ]);
    expect(fleet.lookup.counters.searchRequests).toBe(1);
  });
});
