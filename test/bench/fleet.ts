import { parseArgs } from 'node:util';
import { RedisStore } from '../../src/shared-state/redis-store.js';
import { redisTarget } from '../support/redis-server.js';
import type { UpstreamLog } from '../../src/upstream/log.js';
import { startFleet, type Fleet } from '../support/fleet.js';
import { readCommandLine, wholeNumberOption } from './command-line.js';

/**
 * `npm run bench:fleet`: three gateways on one Redis (in one process, with the
 * embedded lookup service at 5 ms a search), with the default settings.
 *
 * 1. Calls: every distinct search asked of all three at once; upstream search
 *    and token calls per distinct search (one gateway alone makes 1 and 1 per
 *    token lifetime), the latency a window read from Redis (an L2 hit) adds
 *    over one held in process, and the outages the instances logged. Meanwhile
 *    a client of its own asks Redis what a window lookup asks, and counts the
 *    answers that would have missed a deadline by the gateway's rule.
 * 2. Round trips: each instance reaches Redis through a proxy of its own that
 *    counts what is sent; one search at a time, cold on one instance, then
 *    repeated on another (missing in its process, found in Redis). Then the
 *    same with every Redis reply held back `--redis-delay-ms`: each round
 *    trip on a cold search's way costs that much.
 *
 * Exits 1 when the fleet calls the upstream more than 1.02 times per distinct
 * search or asks for more than one token, or a cold search makes more than 2
 * round trips before its upstream call or 1 after, or a repeat more than 2
 * (1 of them the client's rate limit).
 */
const USAGE = `Usage: npm run bench:fleet -- [options]
  --searches N          distinct searches asked of all three instances (default 300)
  --round-trips N       searches timed for round trips, each cold then repeated, with and without the delay (default 20)
  --redis-delay-ms MS   how long each Redis reply is held back in the delayed runs (default 150)`;

interface FleetBenchOptions {
  searches: number;
  roundTrips: number;
  redisDelayMs: number;
}

function readOptions(args: string[]): FleetBenchOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { searches: { type: 'string' }, 'round-trips': { type: 'string' }, 'redis-delay-ms': { type: 'string' } },
  });
  return {
    searches: wholeNumberOption('searches', values.searches, 300, 1, 100_000),
    roundTrips: wholeNumberOption('round-trips', values['round-trips'], 20, 1, 1_000),
    redisDelayMs: wholeNumberOption('redis-delay-ms', values['redis-delay-ms'], 150, 1, 10_000),
  };
}

const SEARCH_WORDS = ['Holdings', 'Trading', 'Services', 'Group', 'Consulting', 'Partners', 'Limited', 'Systems', 'Capital', 'Energy'];

/** Distinct searches: a word and a number, each a search no cache holds; `run` keeps the runs of one bench apart. */
function searchAt(i: number, run = 'a'): { q: string; jurisdiction: string } {
  return { q: `${SEARCH_WORDS[i % SEARCH_WORDS.length]} ${run}${i}`, jurisdiction: 'GB' };
}

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function describeMs(samples: number[]): string {
  return [0.5, 0.9, 0.99].map((q) => `p${q * 100} ${quantile(samples, q).toFixed(3)} ms`).join(', ');
}

async function timed(fleet: Fleet, index: number, search: { q: string; jurisdiction: string }, pageSize: number): Promise<number> {
  const answer = await fleet.search(index, search, pageSize);
  if (answer.status !== 200 || answer.body.errors !== undefined) throw new Error(`search failed: ${JSON.stringify(answer.body)}`);
  return answer.ms;
}

/** The outages the instances logged: each made them go on alone for a while. */
function outages(fleet: Fleet): number {
  return fleet.logs.flat().filter((line) => line.includes('Redis unavailable')).length;
}

const CANDIDATE_DEADLINES_MS = [50, 100, 250, 500, 1_000];

const SILENT: UpstreamLog = { debug() {}, info() {}, warn() {} };

/**
 * A client of its own asking Redis, one call at a time, what a window lookup asks, until stopped: how long each
 * answer took, and whether it would have missed each candidate deadline by the gateway's rule (judged after the
 * event loop's poll phase, so that an answer already on the socket counts).
 */
async function watchRedisReplies(url: string): Promise<{ stop(): Promise<string> }> {
  // The gateway's own store, with a deadline long enough that every answer is waited for and timed.
  const store = await RedisStore.open({ target: redisTarget(url), keyPrefix: 'bench:', commandTimeoutMs: 10_000, log: SILENT });
  const samples: number[] = [];
  const misses = CANDIDATE_DEADLINES_MS.map(() => 0);
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const sentAt = performance.now();
      let answered = false;
      const judged = CANDIDATE_DEADLINES_MS.map(
        (deadline, d) =>
          new Promise<void>((resolve) =>
            setTimeout(
              () =>
                setImmediate(() => {
                  if (!answered) misses[d]! += 1;
                  resolve();
                }),
              deadline,
            ),
          ),
      );
      await store.claimWindow({ key: `w:${i % 100}`, lockId: `watch-${i}`, lockMs: 1, freshMs: 300_000 });
      answered = true;
      samples.push(performance.now() - sentAt);
      // About as often as a busy gateway asks, not flat out; the judges of a late answer are waited for.
      await Promise.race([Promise.all(judged), new Promise((resolve) => setTimeout(resolve, 5))]);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await store.close();
      const missed = CANDIDATE_DEADLINES_MS.map((deadline, d) => `${deadline} ms: ${misses[d]}`).join(', ');
      return (
        `- Redis answers to a window lookup's script during the run, from a client in the gateways' process (${samples.length} calls): ` +
        `p50 ${quantile(samples, 0.5).toFixed(2)} ms, p99 ${quantile(samples, 0.99).toFixed(2)} ms, p99.9 ${quantile(samples, 0.999).toFixed(2)} ms, ` +
        `max ${Math.max(...samples).toFixed(2)} ms; calls that would have missed a deadline of ${missed}.`
      );
    },
  };
}

/** Phase 1: calls per distinct search, L2 latency, and Redis's answers meanwhile. */
async function calls(options: FleetBenchOptions): Promise<{ lines: string[]; ok: boolean }> {
  // One client asks everything: its rate limit is not what is measured here.
  const fleet = await startFleet({ lookup: { searchLatencyMs: 5 }, gateway: { rateLimitPerMinute: 0, logLevel: 'warn' } });
  try {
    await Promise.all(fleet.gateways.map((gateway) => gateway.tokenAtStart));
    const watcher = await watchRedisReplies(fleet.redis.url);
    for (let i = 0; i < options.searches; i++) await Promise.all([0, 1, 2].map((index) => timed(fleet, index, searchAt(i), 5)));
    const { searchRequests, tokenRequests } = fleet.lookup.counters;
    // A search fetched on instance 0, then asked of instance 1 (its window from Redis), then asked of instance 1 again
    // with another page size (its window in process; another request, so no response-cache hit).
    const l2: number[] = [];
    const local: number[] = [];
    for (let i = options.searches; i < 2 * options.searches; i++) {
      await timed(fleet, 0, searchAt(i), 5);
      l2.push(await timed(fleet, 1, searchAt(i), 6));
      local.push(await timed(fleet, 1, searchAt(i), 7));
    }
    const replies = await watcher.stop();
    const perSearch = searchRequests / options.searches;
    return {
      lines: [
        `- ${options.searches} distinct searches, each asked of all three instances at once: ${searchRequests} upstream search call(s) ` +
          `(${perSearch.toFixed(3)} per distinct search; one gateway alone: 1.000), ${tokenRequests} token call(s) (one gateway alone: 1).`,
        `- Request latency, window from Redis (L2 hit): ${describeMs(l2)}.`,
        `- Request latency, window in process (in-process hit): ${describeMs(local)}.`,
        `- An L2 hit adds ${(quantile(l2, 0.5) - quantile(local, 0.5)).toFixed(3)} ms at the median over an in-process hit.`,
        `- Redis taken to be away: ${outages(fleet)} time(s).`,
        replies,
      ],
      ok: perSearch <= 1.02 && tokenRequests === 1,
    };
  } finally {
    await fleet.close();
  }
}

interface SearchCost {
  /** Round trips (proxy writes) of the instance asked, before its upstream call and after; latency in ms. */
  before: number;
  after: number;
  ms: number;
}

/** Resolves once the lookup service has received one more search than `seen`, with the asking instance's proxy writes then. */
function upstreamCallSeen(fleet: Fleet, seen: number, index: number): { writes: Promise<number>; stop(): void } {
  let stopped = false;
  const writes = new Promise<number>((resolve) => {
    const look = () => {
      if (stopped) return resolve(Number.NaN);
      if (fleet.lookup.counters.searchRequests > seen) return resolve(fleet.proxies[index]!.writes);
      setImmediate(look);
    };
    look();
  });
  return { writes, stop: () => (stopped = true) };
}

/** One search asked of instance `index`, and what it cost in round trips: before its upstream call, if it made one, and after. */
async function cost(fleet: Fleet, index: number, search: { q: string; jurisdiction: string }): Promise<SearchCost> {
  const proxy = fleet.proxies[index]!;
  const start = proxy.writes;
  const upstream = upstreamCallSeen(fleet, fleet.lookup.counters.searchRequests, index);
  const ms = await timed(fleet, index, search, 5);
  upstream.stop();
  // What follows the answer (the publish) is on its way by now; its reply held back by the proxy's delay at most.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await proxy.drained();
  const atCall = await upstream.writes;
  const total = proxy.writes - start;
  return Number.isNaN(atCall) ? { before: total, after: 0, ms } : { before: atCall - start, after: total - (atCall - start), ms };
}

function most(costs: SearchCost[], field: 'before' | 'after'): number {
  return Math.max(...costs.map((one) => one[field]));
}

/** Phase 2: round trips per cold and repeated search, and cold latency with every Redis reply held back. */
async function roundTrips(options: FleetBenchOptions): Promise<{ lines: string[]; ok: boolean }> {
  const fleet = await startFleet({ lookup: { searchLatencyMs: 5 }, gateway: { logLevel: 'warn' }, redisProxies: true });
  try {
    await Promise.all(fleet.gateways.map((gateway) => gateway.tokenAtStart));
    const run = async (tag: string) => {
      const cold: SearchCost[] = [];
      const repeated: SearchCost[] = [];
      for (let i = 0; i < options.roundTrips; i++) {
        cold.push(await cost(fleet, 0, searchAt(i, tag)));
        repeated.push(await cost(fleet, 1, searchAt(i, tag)));
      }
      return { cold, repeated };
    };
    const plain = await run('p');
    for (const proxy of fleet.proxies) proxy.delayMs = options.redisDelayMs;
    const delayed = await run('d');
    const [coldMs, delayedColdMs, repeatMs, delayedRepeatMs] = [plain.cold, delayed.cold, plain.repeated, delayed.repeated].map((costs) =>
      quantile(
        costs.map((one) => one.ms),
        0.5,
      ),
    ) as [number, number, number, number];
    const coldBefore = most(plain.cold, 'before');
    const coldAfter = most(plain.cold, 'after');
    const repeat = most(plain.repeated, 'before') + most(plain.repeated, 'after');
    return {
      lines: [
        `- Redis round trips of a cold search (one at a time, counted by a proxy in front of Redis; the most over ${options.roundTrips}): ` +
          `${coldBefore} before its upstream call (one of them the client's rate limit), ${coldAfter} after it.`,
        `- Redis round trips of the same search repeated on another instance (missing in its process, found in Redis): ${repeat} (one of them the client's rate limit).`,
        `- Cold search latency, median: ${coldMs.toFixed(1)} ms; with every Redis reply held back ${options.redisDelayMs} ms: ${delayedColdMs.toFixed(1)} ms ` +
          `(${((delayedColdMs - coldMs) / options.redisDelayMs).toFixed(2)} delays).`,
        `- Repeated search latency, median: ${repeatMs.toFixed(1)} ms; with the delay: ${delayedRepeatMs.toFixed(1)} ms ` +
          `(${((delayedRepeatMs - repeatMs) / options.redisDelayMs).toFixed(2)} delays).`,
        `- Redis taken to be away: ${outages(fleet)} time(s).`,
      ],
      ok: coldBefore <= 2 && coldAfter <= 1 && repeat <= 2,
    };
  } finally {
    await fleet.close();
  }
}

async function main(): Promise<number> {
  const options = readCommandLine(readOptions, USAGE);
  if (options === undefined) return 2;
  const first = await calls(options);
  const second = await roundTrips(options);
  process.stdout.write(['## Fleet benchmark: three gateways on one Redis', '', ...first.lines, ...second.lines, ''].join('\n'));
  return first.ok && second.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
