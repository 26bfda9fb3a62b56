import type { Fleet, FleetRedis } from '../../support/fleet.js';
import { until } from '../../support/redis-cli.js';
import { everyInstanceShares, searchAt, sharingFleet } from './measure.js';
import type { BenchRedis } from './topology.js';

/** Rounds asked after every instance shares again, before a failover's cost is counted as done. */
const ROUNDS_AFTER = 20;

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
  const fleet = await sharingFleet(() => redis.forFleet(), {
    lookup: { searchLatencyMs: 5 },
    gateway: { redisKeyPrefix: 'bench-failover:', rateLimitPerMinute: 0, logLevel: 'info' },
  });
  const lines: string[] = [];
  let failoverTokens = 0;
  let round = 0;
  let failed = 0;
  let running = true;
  /** Asked for between two rounds: the rounds done and the upstream calls made, counted while none is under way. */
  type Mark = { round: number; searches: number; tokens: number };
  let marks: ((mark: Mark) => void)[] = [];
  const mark = () => new Promise<Mark>((resolve) => marks.push(resolve));
  const asking = (async () => {
    while (running) {
      const { searchRequests: searches, tokenRequests: tokens } = fleet.lookup.counters;
      for (const resolve of marks.splice(0)) resolve({ round, searches, tokens });
      const search = searchAt(round, 'f');
      const answers = await Promise.all([0, 1, 2].map((index) => fleet.search(index, search)));
      failed += answers.filter((answer) => answer.status !== 200 || answer.body.errors !== undefined).length;
      round += 1;
    }
    marks = [];
  })();
  try {
    for (const failover of redis.failovers) {
      const from = fleet.logs.map((log) => log.length);
      const start = await mark();
      await failover.run();
      await until(() => everyInstanceShares(fleet), 'every instance to share again');
      const back = round;
      await until(async () => round >= back + ROUNDS_AFTER, 'rounds after the failover');
      const end = await mark();
      const rounds = end.round - start.round;
      const extra = end.searches - start.searches - rounds;
      const alone = aloneMs(fleet, from);
      const tokens = end.tokens - start.tokens;
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
    await asking;
    await fleet.close();
  }
  lines.push(`- Searches not answered whole across the failovers: ${failed}.`);
  return { lines, ok: failed === 0 && failoverTokens <= 2 };
}
