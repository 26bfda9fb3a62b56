import { parseArgs } from 'node:util';
import { readCommandLine, wholeNumberOption } from './command-line.js';
import { calls } from './fleet/calls.js';
import { failovers } from './fleet/failover.js';
import { roundTrips } from './fleet/round-trips.js';
import { startBenchRedis, TOPOLOGIES, type Topology } from './fleet/topology.js';

/**
 * `npm run bench:fleet`: three gateways (in one process, with the embedded lookup service at 5 ms a search) sharing
 * one Redis of the topology asked for, with the default settings.
 *
 * 1. Calls: every distinct search asked of all three at once; upstream search and token calls per distinct search
 *    (one gateway alone makes 1 and 1 per token lifetime), the Redis commands sent and how they spread over the nodes,
 *    the latency a window read from Redis (an L2 hit) adds over one held in process. Meanwhile a client of its own asks
 *    Redis what a window lookup asks, and counts the answers that would have missed a deadline by the gateway's rule.
 * 2. Round trips: one search at a time, cold on one instance, then repeated on another (missing in its process, found
 *    in Redis), each command node-redis sends counted. With one server, the same with every Redis reply held back
 *    `--redis-delay-ms` (each instance reaching Redis through a proxy of its own).
 * 3. With Sentinel or a cluster, what a failover costs: new searches asked of all three at once while it fails over
 *    (asked, then its master killed): how long each instance went on alone, and the upstream calls that cost.
 *
 * Exits 1 when the fleet calls the upstream more than 1.02 times per distinct search or asks for more than one token
 * (phase 1), a cold search sends more than 4 commands before its upstream call (the rate limit, the claim with the read
 * of where purges are beside it, the admission) or 2 after (the window indexed under its tags, then stored), or a
 * repeat more than 3, or a search fails or more than 2 tokens are asked for across the failovers.
 */
const USAGE = `Usage: npm run bench:fleet -- [options]
  --redis TOPOLOGY      ${TOPOLOGIES.join(', ')}: one redis-server, a master with two replicas and three sentinels, or three
                        masters with a replica each, all on loopback (default single)
  --searches N          distinct searches asked of all three instances (default 300)
  --round-trips N       searches timed for round trips, each cold then repeated (default 20)
  --redis-delay-ms MS   with one server, how long each Redis reply is held back in the delayed runs (default 150)`;

interface FleetBenchOptions {
  redis: Topology;
  searches: number;
  roundTrips: number;
  redisDelayMs: number;
}

function readOptions(args: string[]): FleetBenchOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      redis: { type: 'string' },
      searches: { type: 'string' },
      'round-trips': { type: 'string' },
      'redis-delay-ms': { type: 'string' },
    },
  });
  const redis = values.redis ?? 'single';
  if (!(TOPOLOGIES as readonly string[]).includes(redis))
    throw new Error(`--redis must be one of ${TOPOLOGIES.join(', ')}, got ${JSON.stringify(redis)}`);
  return {
    redis: redis as Topology,
    searches: wholeNumberOption('searches', values.searches, 300, 1, 100_000),
    roundTrips: wholeNumberOption('round-trips', values['round-trips'], 20, 1, 1_000),
    redisDelayMs: wholeNumberOption('redis-delay-ms', values['redis-delay-ms'], 150, 1, 10_000),
  };
}

async function main(): Promise<number> {
  const options = readCommandLine(readOptions, USAGE);
  if (options === undefined) return 2;
  const redis = await startBenchRedis(options.redis);
  try {
    const phases = [
      await calls(redis, options.searches),
      await roundTrips(redis, options.roundTrips, options.redis === 'single' ? options.redisDelayMs : undefined),
      ...(redis.failovers.length > 0 ? [await failovers(redis)] : []),
    ];
    const title = `## Fleet benchmark: three gateways on ${redis.describe} (--redis ${options.redis})`;
    process.stdout.write([title, '', ...phases.flatMap((phase) => phase.lines), ''].join('\n'));
    return phases.every((phase) => phase.ok) ? 0 : 1;
  } finally {
    await redis.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
