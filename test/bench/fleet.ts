import { startFleet, type Fleet } from '../support/fleet.js';

/**
 * `npm run bench:fleet`: three gateways on one Redis (in one process, with the
 * embedded lookup service at 5 ms a search). Reports upstream search and token
 * calls per distinct search when every search is asked of all three (one
 * gateway alone makes 1 search call per distinct search and 1 token call per
 * token lifetime: the fleet must match it), and the latency a window read from
 * Redis (an L2 hit) adds over one the instance holds (an in-process hit).
 * `--searches N` (default 300). Exits 1 when the fleet makes more calls than
 * one gateway would.
 */
const SEARCH_WORDS = ['Holdings', 'Trading', 'Services', 'Group', 'Consulting', 'Partners', 'Limited', 'Systems', 'Capital', 'Energy'];

function readSearches(argv: string[]): number {
  const at = argv.indexOf('--searches');
  const value = at === -1 ? 300 : Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error('--searches must be a whole number from 1');
  return value;
}

/** Distinct searches: a word and a number, each a search no cache holds. */
function searchAt(i: number): { q: string; jurisdiction: string } {
  return { q: `${SEARCH_WORDS[i % SEARCH_WORDS.length]} ${i}`, jurisdiction: 'GB' };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function describeMs(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `p50 ${quantile(sorted, 0.5).toFixed(3)} ms, p90 ${quantile(sorted, 0.9).toFixed(3)} ms, p99 ${quantile(sorted, 0.99).toFixed(3)} ms`;
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

async function main(): Promise<number> {
  const searches = readSearches(process.argv.slice(2));
  const fleet = await startFleet({
    lookup: { searchLatencyMs: 5 },
    gateway: { rateLimitPerMinute: 0, logLevel: 'warn', redisCommandTimeoutMs: 50 },
  });
  try {
    // Calls: every distinct search asked of all three instances at once.
    for (let i = 0; i < searches; i++) await Promise.all([0, 1, 2].map((index) => timed(fleet, index, searchAt(i), 5)));
    const { searchRequests, tokenRequests } = fleet.lookup.counters;

    // Latency: a search fetched on instance 0, then asked of instance 1 (its window from Redis), then asked of
    // instance 1 again with another page size (its window in process; another request, so no response-cache hit).
    const l2: number[] = [];
    const local: number[] = [];
    for (let i = searches; i < 2 * searches; i++) {
      await timed(fleet, 0, searchAt(i), 5);
      l2.push(await timed(fleet, 1, searchAt(i), 6));
      local.push(await timed(fleet, 1, searchAt(i), 7));
    }
    const median = (samples: number[]) =>
      quantile(
        [...samples].sort((a, b) => a - b),
        0.5,
      );
    const lines = [
      '## Fleet benchmark: three gateways on one Redis',
      '',
      `- ${searches} distinct searches, each asked of all three instances at once: ${searchRequests} upstream search call(s) ` +
        `(${(searchRequests / searches).toFixed(2)} per distinct search; one gateway alone: 1.00), ${tokenRequests} token call(s) (one gateway alone: 1).`,
      `- Request latency, window from Redis (L2 hit): ${describeMs(l2)}.`,
      `- Request latency, window in process (in-process hit): ${describeMs(local)}.`,
      `- An L2 hit adds ${(median(l2) - median(local)).toFixed(3)} ms at the median over an in-process hit.`,
      `- Redis taken to be away (a call without an answer within REDIS_COMMAND_TIMEOUT_MS): ${outages(fleet)} time(s).`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
    return searchRequests === searches && tokenRequests === 1 ? 0 : 1;
  } finally {
    await fleet.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
