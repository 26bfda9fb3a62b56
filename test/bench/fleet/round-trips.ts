import { PUBLISH_WINDOW_SCRIPT } from '../../../src/shared-state/scripts.js';
import type { Alarm } from '../../../src/upstream/resilience/clock.js';
import type { Fleet, FleetRedis } from '../../support/fleet.js';
import { outages, quantile, searchAt, sharingFleet, timed } from './measure.js';
import { watchRedisCommands } from './redis-commands.js';
import type { BenchRedis } from './topology.js';

interface SearchCost {
  /** Redis round trips of the search, before its upstream call and after (all before, for one that made none); latency in ms. */
  before: number;
  after: number;
  ms: number;
}

/** One search asked of instance `index`, and what it cost in round trips: before its upstream call, if it made one, and after. */
async function cost(fleet: Fleet<FleetRedis>, index: number, search: { q: string; jurisdiction: string }): Promise<SearchCost> {
  const seen = fleet.lookup.counters.searchRequests;
  const commands = watchRedisCommands(() => fleet.lookup.counters.searchRequests);
  const ms = await timed(fleet, index, search, 5);
  // A window fetched is indexed under its tags, then stored, after the answer is written: the cost is counted once
  // that last step is sent, so that it is not counted in the next search's.
  if (fleet.lookup.counters.searchRequests > seen) {
    const published = await commands.whenSent((command) => command.script === PUBLISH_WINDOW_SCRIPT.sha1, PUBLISH_WAIT_MS);
    // Counted without it, the search's cost would read low and the next one's high.
    if (!published) throw new Error(`A fetched window was not published to Redis within ${PUBLISH_WAIT_MS} ms`);
  }
  commands.stop();
  const before = commands.sent.filter((command) => command.upstreamSearchesBefore === seen).length;
  return { before, after: commands.sent.length - before, ms };
}

const NEVER: Alarm = () => () => {};
/** Longest a cost waits for the window's publish after the answer, in ms: a loaded host's Redis round trips. */
const PUBLISH_WAIT_MS = 5_000;

function most(costs: SearchCost[], field: 'before' | 'after'): number {
  return Math.max(...costs.map((one) => one[field]));
}

const median = (costs: SearchCost[]) =>
  quantile(
    costs.map((one) => one.ms),
    0.5,
  );

/**
 * Phase 2: Redis round trips per cold and repeated search, and, with one server (each instance reaching it through a
 * proxy of its own), cold and repeated latency with every Redis reply held back `delayMs`.
 */
export async function roundTrips(redis: BenchRedis, count: number, delayMs: number | undefined): Promise<{ lines: string[]; ok: boolean }> {
  const fleet = await sharingFleet(() => redis.forFleet(), {
    lookup: { searchLatencyMs: 5 },
    gateway: { redisKeyPrefix: 'bench-round-trips:', logLevel: 'warn' },
    redisProxies: delayMs !== undefined,
    // Each instance's read of the fleet's log of purges, every second, is no search's: never made here, so that only
    // what a search sends is counted.
    purgeCheckAlarms: [NEVER, NEVER, NEVER],
  });
  try {
    // The token, asked for once, so that no search timed here asks for it (counted as one, so that its window's publish is not counted in the first).
    await cost(fleet, 0, searchAt(0, 'token'));
    const run = async (tag: string) => {
      const cold: SearchCost[] = [];
      const repeated: SearchCost[] = [];
      for (let i = 0; i < count; i++) {
        cold.push(await cost(fleet, 0, searchAt(i, tag)));
        repeated.push(await cost(fleet, 1, searchAt(i, tag)));
      }
      return { cold, repeated };
    };
    const plain = await run('p');
    const coldBefore = most(plain.cold, 'before');
    const coldAfter = most(plain.cold, 'after');
    const repeat = most(plain.repeated, 'before') + most(plain.repeated, 'after');
    const lines = [
      `- Redis round trips of a cold search (one at a time, each command node-redis sent; the most over ${count}): ` +
        `${coldBefore} before its upstream call (the client's rate limit, the window's claim with the read of where purges are sent beside it, the call's admission), ${coldAfter} after it (the window indexed under its tags, then stored).`,
      `- Redis round trips of the same search repeated on another instance (missing in its process, found in Redis): ${repeat} (the rate limit, the window and where purges are).`,
      `- Cold search latency, median: ${median(plain.cold).toFixed(1)} ms; repeated: ${median(plain.repeated).toFixed(1)} ms.`,
    ];
    if (delayMs !== undefined) {
      for (const proxy of fleet.proxies) proxy.delayMs = delayMs;
      const delayed = await run('d');
      const [cold, held] = [median(plain.cold), median(delayed.cold)];
      const [repeated, heldRepeated] = [median(plain.repeated), median(delayed.repeated)];
      lines.push(
        `- With every Redis reply held back ${delayMs} ms: cold ${held.toFixed(1)} ms (${((held - cold) / delayMs).toFixed(2)} delays), ` +
          `repeated ${heldRepeated.toFixed(1)} ms (${((heldRepeated - repeated) / delayMs).toFixed(2)} delays).`,
      );
    }
    lines.push(`- Redis taken to be away: ${outages(fleet)} time(s).`);
    return { lines, ok: coldBefore <= 4 && coldAfter <= 2 && repeat <= 3 };
  } finally {
    await fleet.close();
  }
}
