import type { FleetRedis } from '../../support/fleet.js';
import { startRedisCluster } from '../../support/redis-cluster.js';
import { startRedisServer } from '../../support/redis-server.js';
import { startRedisSentinels } from '../../support/redis-sentinel.js';

export const TOPOLOGIES = ['single', 'sentinel', 'cluster'] as const;
export type Topology = (typeof TOPOLOGIES)[number];

/** The Redis a bench's fleets share, started once for every phase (each under a key prefix of its own); a fleet's own stop leaves it running. */
export interface BenchRedis {
  /** What each fleet is given: the Redis, which its close() does not stop. */
  forFleet(): Promise<FleetRedis>;
  /** Fails it over politely (SENTINEL FAILOVER, CLUSTER FAILOVER), and by killing its master; none for one server. */
  failovers: { name: string; run(): Promise<unknown> }[];
  describe: string;
  stop(): Promise<void>;
}

export async function startBenchRedis(topology: Topology): Promise<BenchRedis> {
  if (topology === 'single') {
    const server = await startRedisServer();
    return {
      forFleet: async () => ({ url: server.url, stop: async () => {} }),
      failovers: [],
      describe: 'one redis-server',
      stop: () => server.stop(),
    };
  }
  const started = topology === 'sentinel' ? await startRedisSentinels() : await startRedisCluster();
  return {
    forFleet: async () => ({ url: started.url, stop: async () => {} }),
    failovers: [
      { name: topology === 'sentinel' ? 'SENTINEL FAILOVER' : 'CLUSTER FAILOVER', run: () => started.failover() },
      { name: topology === 'sentinel' ? 'the master killed' : 'a master killed', run: () => started.killMaster() },
    ],
    describe: topology === 'sentinel' ? 'a master, two replicas and three sentinels' : 'a cluster of three masters with a replica each',
    stop: () => started.stop(),
  };
}
