import { afterEach, describe, expect, it } from 'vitest';
import { startFleet, type Fleet, type FleetRedis } from '../support/fleet.js';
import { send } from '../support/http.js';
import { changes, promtoolProblems, scrape } from '../support/metrics.js';
import { redisCli } from '../support/redis-cli.js';
import { RedisGroup, serverArgs } from '../support/redis-server.js';
import { sharingReport } from '../support/sharing-report.js';
import { eventually, SAFETY_MS, within } from '../support/within.js';

let fleet: Fleet<FleetRedis> | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** How many windows the fleet's Redis holds (`csg:{w:…}`, not their locks or tombstones). */
async function storedWindows(target: Fleet<FleetRedis>): Promise<number> {
  const scanned = await redisCli(Number(new URL(target.redis.url).port), '--scan', '--pattern', 'csg:{w:*}');
  return scanned.split('\n').filter((key) => key.endsWith('}')).length;
}

async function readiness(index: number): Promise<{ status: number; body: { status: string; redis?: string } }> {
  const answer = await send(`${fleet!.gateways[index]!.url}/ready`);
  return { status: answer.status, body: JSON.parse(answer.text) as { status: string; redis?: string } };
}

describe('readiness and metrics of a fleet on Redis', () => {
  it('report Redis connected, then unavailable while it is away, without failing readiness, then connected again', async () => {
    const single = await startFleet({ instances: 1, gateway: { metricsPort: 0 } });
    fleet = single;
    const metricsUrl = fleet.gateways[0]!.metricsUrl!;
    await within(fleet.logged(0, 'Redis connected'), SAFETY_MS, 'the instance to connect to Redis');
    expect(await readiness(0)).toMatchObject({ status: 200, body: { status: 'ready', redis: 'connected' } });
    expect((await scrape(metricsUrl)).series.get('csg_redis_sharing')).toBe(1);

    await single.redis.kill();
    // A request asks Redis, and finding it gone, the instance goes on alone.
    expect((await fleet.search(0, { q: 'Holdings', jurisdiction: 'GB' })).status).toBe(200);
    await within(fleet.logged(0, 'Redis unavailable'), SAFETY_MS, 'the instance to see Redis gone');
    expect(await readiness(0)).toMatchObject({ status: 200, body: { status: 'ready', redis: 'unavailable' } });
    expect((await scrape(metricsUrl)).series.get('csg_redis_sharing')).toBe(0);

    await single.redis.restart();
    await within(fleet.logged(0, 'Redis is back'), SAFETY_MS, 'the instance to see Redis back');
    expect(await readiness(0)).toMatchObject({ status: 200, body: { status: 'ready', redis: 'connected' } });
    expect((await scrape(metricsUrl)).series.get('csg_redis_sharing')).toBe(1);
  });
});

describe('an instance whose Redis answers late, or refuses it', () => {
  it('takes a Redis whose every answer is late for away: logged once, reported, and no request waits for it any more', async () => {
    const late = await startFleet({ instances: 1, redisProxies: true, gateway: { metricsPort: 0 } });
    fleet = late;
    const [gateway, proxy] = [late.gateways[0]!, late.proxies[0]!];
    await within(fleet.logged(0, 'Redis connected'), SAFETY_MS, 'the instance to share');
    const search = { q: 'Holdings', jurisdiction: 'GB' };
    expect((await fleet.search(0, search)).status).toBe(200);
    // Every reply from Redis late past the deadline (250 ms), as the review measured it: the answer is in the response
    // cache, and only the rate limit asks Redis.
    proxy.delayMs = 400;
    const away = fleet.logged(0, 'Redis unavailable');
    let asked = 0;
    while (!(await Promise.race([away.then(() => true), fleet.search(0, search).then(() => false)]))) asked += 1;
    expect(asked).toBeGreaterThan(0);
    expect(await sharingReport(gateway)).toMatchObject({ status: 200, redis: 'unavailable', sharingGauge: 0 });
    // Away: a cache hit asks Redis nothing, so nothing waits for its late answer.
    const writes = proxy.writes;
    const answer = await fleet.search(0, search);
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(proxy.writes).toBe(writes);
    expect(fleet.logs[0]!.filter((line) => line.includes('Redis unavailable'))).toHaveLength(1);
  });

  it("reports a read-only replica's refusal in /ready and the metrics while serving alone, and shares once it is a master", async () => {
    let replica = 0;
    fleet = await startFleet({
      instances: 1,
      gateway: { metricsPort: 0 },
      redis: async () => {
        const group = await RedisGroup.create('replica');
        try {
          return await group.onFreePorts(2, async ([master, port]) => {
            await group.start(master!, serverArgs(master!));
            await group.start(port!, [...serverArgs(port!), '--replicaof', '127.0.0.1', String(master)]);
            replica = port!;
            return { url: `redis://127.0.0.1:${port}`, stop: () => group.remove() };
          });
        } catch (error) {
          await group.remove();
          throw error;
        }
      },
    });
    const gateway = fleet.gateways[0]!;
    await within(fleet.logged(0, 'Redis refuses what sharing needs (read_only_replica)'), SAFETY_MS, 'the refusal to be said');
    expect(await sharingReport(gateway)).toEqual({
      status: 200,
      redis: 'refused',
      redisProblem: expect.stringContaining('REDIS_URL names a read-only replica'),
      sharingGauge: 0,
      refusedCause: 'read_only_replica',
    });
    expect((await fleet.search(0, { q: 'Holdings', jurisdiction: 'GB' })).status).toBe(200);
    expect(fleet.logs[0]!.filter((line) => line.includes('sharing the upstream state'))).toEqual([]);
    expect(promtoolProblems((await scrape(gateway.metricsUrl!)).text)).toBe('');
    await redisCli(replica, 'REPLICAOF', 'NO', 'ONE');
    await within(fleet.logged(0, 'Redis connected; sharing'), SAFETY_MS, 'the instance to share through the new master');
    expect(await sharingReport(gateway)).toEqual({
      status: 200,
      redis: 'connected',
      redisProblem: undefined,
      sharingGauge: 1,
      refusedCause: undefined,
    });
    expect(fleet.logs[0]!.filter((line) => line.includes('Redis refuses'))).toHaveLength(1);
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
    await eventually(async () => expect(await storedWindows(started)).toBe(1));
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
