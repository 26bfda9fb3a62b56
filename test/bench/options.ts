import { parseArgs } from 'node:util';
import { LOG_LEVELS, type LogLevel } from '../../src/gateway/logger.js';
import { checkoutOption, THIS_CHECKOUT, wholeNumberOption } from './command-line.js';

export interface BenchOptions {
  /** Seconds, correctness only: one short round per contender, no targets judged. */
  smoke: boolean;
  rounds: number;
  /** Measured rounds per contender in the cold scenario: the cold target is a median of pairs of them, and cold rounds move a lot. */
  coldRounds: number;
  roundMs: number;
  warmupMs: number;
  /** Requests in flight in the hot and memory scenarios. */
  concurrency: number;
  /**
   * Requests in flight in the cold scenario. One, so that the added latency is
   * the gateway's own work and not time spent queueing behind other requests
   * for its core: a cold request costs the gateway more CPU than the upstream
   * spends on it, so with more in flight the gateway queues and the upstream does not.
   */
  coldConcurrency: number;
  /**
   * Distinct cold searches sent to each cold contender before its rounds, with
   * `concurrency` in flight. A time-based warm-up is too short here: at one
   * request in flight it lets through a few hundred, while the gateway's cold
   * path (JIT tiers, heap sizing) takes thousands to settle.
   */
  coldWarmupRequests: number;
  upstreamLatencyMs: number;
  /** CACHE_MAX_BYTES of the gateway in the memory scenario. */
  memoryCacheBytes: number;
  /** Only the memory scenario: its figures in minutes, without the hot, cold and single-flight ones. */
  memoryOnly: boolean;
  logLevel: LogLevel;
  /** Where the main gateway writes a V8 CPU profile (--cpu-prof), if anywhere. */
  cpuProfDir: string | undefined;
  /** Exit non-zero when a target is missed, not only on a failed check. */
  enforceTargets: boolean;
  /**
   * A checkout of the gateway (npm ci run there) whose gateway the hot and
   * cold scenarios measure beside this one's: the baseline of the hot
   * throughput and cold CPU targets. A smoke run without one takes this
   * checkout, so that every figure's code runs.
   */
  baseline: string | undefined;
}

export const USAGE = `Usage: npx tsx test/bench/main.ts [options]
  --smoke                    seconds, correctness checks only (CI)
  --rounds N                 measured rounds per contender, hot scenarios (default 5; smoke 1)
  --cold-rounds N            measured rounds per contender, cold scenario (default 20; smoke 1)
  --round-ms MS              length of a round (default 3000; smoke 300)
  --warmup-ms MS             warm-up per contender and scenario (default 2000; smoke 200)
  --concurrency N            requests in flight, hot and memory scenarios (default 16)
  --cold-concurrency N       requests in flight, cold scenario (default 1)
  --cold-warmup N            cold searches per contender before its rounds (default 5000; smoke 20)
  --upstream-latency-ms MS   lookup service search latency (default 5)
  --memory-cache-bytes N     CACHE_MAX_BYTES in the memory scenario (default 4 MiB; smoke 1 MiB)
  --memory-only              run only the memory scenario
  --log-level LEVEL          gateway LOG_LEVEL; lines go to /dev/null (default info)
  --cpu-prof DIR             write a V8 CPU profile of the main gateway to DIR
  --baseline DIR             another checkout of the gateway, with npm ci run there: the hot and
                             cold targets' baseline, measured in the same rounds (smoke: this
                             checkout, unless given)
  --enforce-targets          exit 1 when a target is missed (needs --baseline, but with
                             --memory-only)`;

/** Reads the command line; throws a message naming the bad option. */
export function readOptions(args: string[]): BenchOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      smoke: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      'cold-rounds': { type: 'string' },
      'round-ms': { type: 'string' },
      'warmup-ms': { type: 'string' },
      concurrency: { type: 'string' },
      'cold-concurrency': { type: 'string' },
      'cold-warmup': { type: 'string' },
      'upstream-latency-ms': { type: 'string' },
      'memory-cache-bytes': { type: 'string' },
      'memory-only': { type: 'boolean', default: false },
      'log-level': { type: 'string' },
      'cpu-prof': { type: 'string' },
      'enforce-targets': { type: 'boolean', default: false },
      baseline: { type: 'string' },
    },
  });
  const smoke = values.smoke;
  const integer = (name: keyof typeof values, fallback: number, min: number, max: number) =>
    wholeNumberOption(name, values[name], fallback, min, max);
  const logLevel = values['log-level'] ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
  const enforceTargets = values['enforce-targets'];
  if (enforceTargets && !smoke && !values['memory-only'] && values.baseline === undefined) {
    throw new Error('--enforce-targets needs --baseline DIR: the hot and cold targets compare with that checkout');
  }
  return {
    smoke,
    rounds: integer('rounds', smoke ? 1 : 5, 1, 100),
    coldRounds: integer('cold-rounds', smoke ? 1 : 20, 1, 100),
    roundMs: integer('round-ms', smoke ? 300 : 3_000, 100, 600_000),
    warmupMs: integer('warmup-ms', smoke ? 200 : 2_000, 0, 600_000),
    concurrency: integer('concurrency', 16, 1, 1_024),
    coldConcurrency: integer('cold-concurrency', 1, 1, 1_024),
    coldWarmupRequests: integer('cold-warmup', smoke ? 20 : 5_000, 0, 50_000),
    upstreamLatencyMs: integer('upstream-latency-ms', 5, 0, 10_000),
    memoryCacheBytes: integer('memory-cache-bytes', smoke ? 1024 * 1024 : 4 * 1024 * 1024, 1_024, 1024 * 1024 * 1024),
    memoryOnly: values['memory-only'],
    logLevel: logLevel as LogLevel,
    cpuProfDir: values['cpu-prof'],
    enforceTargets,
    baseline: values.baseline === undefined ? (smoke ? THIS_CHECKOUT : undefined) : checkoutOption('baseline', values.baseline),
  };
}
