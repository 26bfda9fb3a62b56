import { type Fleet, type FleetRedis, startFleet } from '../../support/fleet.js';
import { send } from '../../support/http.js';
import { until } from '../../support/redis-cli.js';
import { searchAt } from './measure.js';
import type { BenchRedis } from './topology.js';

/** Rounds asked after every instance shares again, before a failover's cost is counted as done. */
const ROUNDS_AFTER = 20;

async function everyInstanceShares(fleet: Fleet<FleetRedis>): Promise<boolean> {
  const states = await Promise.all(fleet.gateways.map(async (gateway) => JSON.parse((await send(`${gateway.url}/ready`)).text).redis));
  return states.every((state) => state === 'connected');
}

/** How long each instance went on alone since line `from` of its log (the outages' ends it logged), in ms. */
function aloneMs(fleet: Fleet<FleetRedis>, from: number[]): number[] {
  return fleet.logs.map((lines, i) =>
    lines
      .slice(from[i])
      .filter((line) => line.includes('Redis is back'))
      .reduce((sum, line) => sum + Number((JSON.parse(line) as { outageMs?: number }).outageMs ?? 0), 0),
  );
}

/**
 * Phase 3, on Sentinel or a cluster: what a failover costs. Rounds of a search never asked before, each asked of the
 * three instances at once (every one a search the fleet shares, or each instance fetches alone), run on while the
 * topology fails over; counted from the failover's start until every instance shares again and ROUNDS_AFTER more
 * rounds are answered.
 */
export async function failovers(redis: BenchRedis): Promise<{ lines: string[]; ok: boolean }> {
  const fleet = await startFleet({
    redis: () => redis.forFleet(),
    lookup: { searchLatencyMs: 5 },
    gateway: { redisKeyPrefix: 'bench-failover:', rateLimitPerMinute: 0, logLevel: 'info' },
  });
  const lines: string[] = [];
  let failoverTokens = 0;
  let round = 0;
  let failed = 0;
  let running = true;
  /** Resolves once every instance shares: what is measured is the failovers, and the rounds start then. */
  let shared = () => {};
  const sharing = new Promise<void>((resolve) => (shared = resolve));
  /** Asked for between two rounds: the rounds done and the upstream searches made, counted while none is under way. */
  let marks: ((mark: { round: number; searches: number }) => void)[] = [];
  const mark = () => new Promise<{ round: number; searches: number }>((resolve) => marks.push(resolve));
  const asking = (async () => {
    await sharing;
    while (running) {
      for (const resolve of marks.splice(0)) resolve({ round, searches: fleet.lookup.counters.searchRequests });
      const search = searchAt(round, 'f');
      const answers = await Promise.all([0, 1, 2].map((index) => fleet.search(index, search)));
      failed += answers.filter((answer) => answer.status !== 200 || answer.body.errors !== undefined).length;
      round += 1;
    }
    marks = [];
  })();
  try {
    await until(() => everyInstanceShares(fleet), 'every instance to share');
    await Promise.all(fleet.gateways.map((gateway) => gateway.tokenAtStart));
    shared();
    for (const failover of redis.failovers) {
      const from = fleet.logs.map((log) => log.length);
      const tokensBefore = fleet.lookup.counters.tokenRequests;
      const start = await mark();
      await failover.run();
      await until(() => everyInstanceShares(fleet), 'every instance to share again');
      const back = round;
      await until(async () => round >= back + ROUNDS_AFTER, 'rounds after the failover');
      const end = await mark();
      const rounds = end.round - start.round;
      const extra = end.searches - start.searches - rounds;
      const alone = aloneMs(fleet, from);
      const tokens = fleet.lookup.counters.tokenRequests - tokensBefore;
      failoverTokens += tokens;
      lines.push(
        `- ${failover.name}: each instance alone for ${alone.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}; ` +
          `${rounds} rounds (a new search asked of all three at once) until all shared again and ${ROUNDS_AFTER} more: ` +
          `${extra} upstream search call(s) more than one a round (${(extra / rounds).toFixed(2)} a round), ` +
          `${tokens} token call(s).`,
      );
    }
  } finally {
    running = false;
    shared();
    await asking;
    await fleet.close();
  }
  lines.push(`- Searches not answered whole across the failovers: ${failed}.`);
  return { lines, ok: failed === 0 && failoverTokens <= 2 };
}
