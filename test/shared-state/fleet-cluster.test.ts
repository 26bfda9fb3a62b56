import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Fleet, type FleetRedis, startFleet } from '../support/fleet.js';
import { type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { sharingReport } from '../support/sharing-report.js';
import { SAFETY_MS, within } from '../support/within.js';

/** Distinct searches asked of both instances. */
const SEARCHES = 30;

let cluster: RedisCluster;
beforeAll(async () => {
  // As an operator's first cluster: three masters (redis-cli --cluster create, no replicas).
  cluster = await startRedisCluster({ replicas: false });
}, SAFETY_MS);
afterAll(() => cluster?.stop());

let fleet: Fleet<FleetRedis> | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** The cluster as REDIS_URL names it, by one node only; stopped with the file, not the fleet. */
function named(url: string): () => Promise<FleetRedis> {
  return async () => ({ url, stop: async () => {} });
}

describe('a fleet on a Redis Cluster', () => {
  it('two instances on three masters, named by one node: one token, one upstream call per distinct search', async () => {
    fleet = await startFleet({
      redis: named(`redis-cluster://127.0.0.1:${cluster.ports[0]}`),
      instances: 2,
      gateway: { rateLimitPerMinute: 0 },
    });
    await within(Promise.all([0, 1].map((i) => fleet!.logged(i, 'Redis connected; sharing'))), SAFETY_MS, 'both instances to share');
    await Promise.all(fleet.gateways.map((gateway) => gateway.tokenAtStart));
    for (let i = 0; i < SEARCHES; i++) {
      const answers = await Promise.all([0, 1].map((index) => fleet!.search(index, { q: `Holdings ${i}`, jurisdiction: 'GB' })));
      expect(answers.filter((answer) => answer.status !== 200 || answer.body.errors !== undefined)).toEqual([]);
    }
    expect(fleet.lookup.counters).toMatchObject({ searchRequests: SEARCHES, tokenRequests: 1 });
    expect(fleet.logs.flat().filter((line) => /Redis (unavailable|refuse)/.test(line))).toEqual([]);
  });

  it('one node of it named as if alone (redis://) is refused: said once with the URL to write, in /ready and the metrics; the instance serves alone', async () => {
    fleet = await startFleet({ redis: named(`redis://127.0.0.1:${cluster.ports[0]}`), instances: 1, gateway: { metricsPort: 0 } });
    await within(fleet.logged(0, 'Redis refuses what sharing needs (cluster_node)'), SAFETY_MS, 'the wrong topology to be said');
    expect(await sharingReport(fleet.gateways[0]!)).toEqual({
      status: 200,
      redis: 'refused',
      redisProblem: expect.stringContaining('REDIS_URL names one node of a Redis Cluster: write redis-cluster://'),
      sharingGauge: 0,
      refusedCause: 'cluster_node',
    });
    expect((await fleet.search(0, { q: 'Holdings', jurisdiction: 'GB' })).status).toBe(200);
    const said = fleet.logs[0]!.filter((line) => line.includes('Redis refuses'));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0]!)).toMatchObject({
      cause: 'cluster_node',
      setting: 'REDIS_URL',
      fix: expect.stringContaining('redis-cluster://'),
    });
    expect(fleet.logs[0]!.filter((line) => line.includes('sharing the upstream state'))).toEqual([]);
  });
});
