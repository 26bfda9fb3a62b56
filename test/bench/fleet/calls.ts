import { RedisStore } from '../../../src/shared-state/redis-store.js';
import type { UpstreamLog } from '../../../src/upstream/log.js';
import { redisTarget } from '../../support/redis-server.js';
import { describeMs, outages, quantile, searchAt, sharingFleet, timed } from './measure.js';
import { watchRedisCommands } from './redis-commands.js';
import type { BenchRedis } from './topology.js';

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

/** Phase 1: calls per distinct search, L2 latency, how the commands spread over the nodes, and Redis's answers meanwhile. */
export async function calls(redis: BenchRedis, searches: number): Promise<{ lines: string[]; ok: boolean }> {
  // One client asks everything: its rate limit is not what is measured here.
  const fleet = await sharingFleet(() => redis.forFleet(), {
    lookup: { searchLatencyMs: 5 },
    gateway: { redisKeyPrefix: 'bench-calls:', rateLimitPerMinute: 0, logLevel: 'warn' },
  });
  try {
    const watcher = await watchRedisReplies(fleet.redis.url);
    const commands = watchRedisCommands(() => fleet.lookup.counters.searchRequests);
    for (let i = 0; i < searches; i++) await Promise.all([0, 1, 2].map((index) => timed(fleet, index, searchAt(i, 'a'), 5)));
    commands.stop();
    const { searchRequests, tokenRequests } = fleet.lookup.counters;
    // A search fetched on instance 0, then asked of instance 1 (its window from Redis), then asked of instance 1 again
    // with another page size (its window in process; another request, so no response-cache hit).
    const l2: number[] = [];
    const local: number[] = [];
    for (let i = searches; i < 2 * searches; i++) {
      await timed(fleet, 0, searchAt(i, 'a'), 5);
      l2.push(await timed(fleet, 1, searchAt(i, 'a'), 6));
      local.push(await timed(fleet, 1, searchAt(i, 'a'), 7));
    }
    const replies = await watcher.stop();
    const perSearch = searchRequests / searches;
    const byNode = new Map<string, number>();
    for (const { node } of commands.sent) byNode.set(node, (byNode.get(node) ?? 0) + 1);
    const spread = [...byNode.values()].sort((a, b) => b - a).map((count) => `${((100 * count) / commands.sent.length).toFixed(0)}%`);
    return {
      lines: [
        `- ${searches} distinct searches, each asked of all three instances at once: ${searchRequests} upstream search call(s) ` +
          `(${perSearch.toFixed(3)} per distinct search; one gateway alone: 1.000), ${tokenRequests} token call(s) (one gateway alone: 1).`,
        `- Redis commands the gateways sent meanwhile: ${commands.sent.length} (${(commands.sent.length / (3 * searches)).toFixed(2)} per request), ` +
          `by node: ${spread.join(', ')}.`,
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
