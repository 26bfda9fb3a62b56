import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.js';
import { type Fleet, type FleetRedis, startFleet } from '../support/fleet.js';
import { fleetTraffic } from '../support/fleet-traffic.js';
import { send } from '../support/http.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { startRedisSentinels } from '../support/redis-sentinel.js';
import { eventually, SAFETY_MS, within } from '../support/within.js';

const OUTAGE = 'Redis unavailable';
const BACK = 'Redis is back';
/** The greedy client's burst; its rate is one request a minute, on a clock that stands still: the burst is all it gets. */
const BURST = 40;
/** Answers to the searching clients between failovers: traffic before, across and after each. */
const ANSWERS_BETWEEN = 60;

/** A topology the fleet shares, and the two ways it fails over: asked politely, and by killing its master. */
interface FailingOver extends FleetRedis {
  failover(): Promise<unknown>;
  killMaster(): Promise<unknown>;
}

let fleet: Fleet<FailingOver> | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** Resolves once every instance says (on /ready) that it shares through Redis. */
function allSharing(target: Fleet<FailingOver>): Promise<unknown> {
  return eventually(async () => {
    const states = await Promise.all(target.gateways.map(async (gateway) => JSON.parse((await send(`${gateway.url}/ready`)).text).redis));
    expect(states).toEqual(['connected', 'connected', 'connected']);
  }, 50);
}

/**
 * Three instances under traffic on `start`'s topology, failed over twice (asked, then by killing the master); across
 * both, nothing that matters is lost: every search answered, the token and the upstream calls still shared, the rate
 * limit held, each outage logged once and its end once, and sharing back without a restart.
 */
async function failOverTwice(start: () => Promise<FailingOver>): Promise<void> {
  // One clock, the instances' and the scripts', standing still: no window goes stale and no bucket refills meanwhile.
  fleet = await startFleet({
    redis: start,
    clock: manualClock(),
    // The token is asked for by the first searches, once every instance shares: what is counted is the failovers' cost.
    tokenAtStart: false,
    gateway: { rateLimitPerMinute: 1, rateLimitBurst: BURST, trustedProxyCount: 1 },
  });
  await within(Promise.all([0, 1, 2].map((i) => fleet!.logged(i, 'Redis connected; sharing'))), SAFETY_MS, 'every instance to share');
  const load = fleetTraffic(fleet);
  try {
    // The greedy client over its burst on every instance's own bucket too (each counts what it sees).
    await within(load.greedySent(4 * BURST), SAFETY_MS, 'the greedy client to spend its burst everywhere');
    for (const failover of [() => fleet!.redis.failover(), () => fleet!.redis.killMaster()]) {
      const logged = fleet.logs.map((lines) => lines.length);
      await within(load.more(ANSWERS_BETWEEN / 2), SAFETY_MS, 'traffic before the failover');
      await failover();
      await allSharing(fleet);
      await within(load.more(ANSWERS_BETWEEN), SAFETY_MS, 'traffic after the failover');
      for (const [index, lines] of fleet.logs.entries()) {
        const since = lines.slice(logged[index]);
        const outages = since.filter((line) => line.includes(OUTAGE)).length;
        // At most one outage, and if one, its end: sharing again without a restart.
        expect(outages).toBeLessThanOrEqual(1);
        expect(since.filter((line) => line.includes(BACK)).length).toBe(outages);
      }
    }
  } finally {
    await load.stop();
  }
  expect(load.answers.filter((answer) => answer.status !== 200 || answer.body.errors !== undefined)).toEqual([]);
  const { searchRequests, tokenRequests } = fleet.lookup.counters;
  expect(tokenRequests).toBeLessThanOrEqual(2);
  expect(searchRequests / load.distinct.size).toBeLessThanOrEqual(1.05);
  // The fleet's burst, and at most one more: the bucket's state lost with a master it was not yet copied from.
  expect(load.greedy).toMatchObject({ other: 0 });
  expect(load.greedy.allowed).toBeLessThanOrEqual(2 * BURST);
  // Sharing again: a search new to all three is fetched once, whichever instances ask.
  const before = fleet.lookup.counters.searchRequests;
  const answers = await Promise.all([0, 1, 2].map((i) => fleet!.search(i, { q: 'Limited after failover', jurisdiction: 'GB' })));
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
  expect(fleet.lookup.counters.searchRequests - before).toBe(1);
}

describe('a fleet on Redis that fails over under traffic', () => {
  it('with Sentinel (a master, two replicas, three sentinels): SENTINEL FAILOVER, then the master killed', async () => {
    await failOverTwice(startRedisSentinels);
  });

  it('on a Redis Cluster (three masters, a replica each): CLUSTER FAILOVER, then a master killed', async () => {
    await failOverTwice(startRedisCluster);
  });
});
