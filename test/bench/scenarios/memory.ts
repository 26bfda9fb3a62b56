import { gatewayStats, type BenchContext, type Server } from '../context.js';
import { LoadClient, type LoadPlan } from '../load.js';
import { checkSearchAnswer, checkSmallSearchAnswer, graphqlRequest, SEARCH_COMPANIES } from '../operations.js';
import type { GatewayStats } from '../../harness/protocol.js';
import { QueryCursor, SmallSearches, type SearchVariables } from '../queries.js';

/** Distinct searches answered before the first RSS reading, so that it includes warm code and pools, not cached data. */
const SETTLING_SEARCHES = 50;
const VOLUME_FACTOR = 10;
const POLL_MS = 100;

/** One way of filling the cache: its searches and how to check their answers. */
export interface MemoryCase {
  /** What is searched, for the report, e.g. `distinct full-page searches`. */
  title: string;
  /** A new source of distinct searches, each call. */
  searches(context: BenchContext): () => SearchVariables;
  check(status: number, body: Buffer): string | undefined;
}

/** Full pages of 50 results: few windows, each mostly company data. */
export const FULL_PAGES: MemoryCase = {
  title: 'distinct full-page searches',
  searches: (context) => {
    const cursor = new QueryCursor(context.queries);
    return () => cursor.next();
  },
  check: checkSearchAnswer,
};

/**
 * Searches with at most one result: many windows, each mostly bookkeeping
 * (its key, its object, the cache's entry), which a bound counted in bytes
 * of upstream JSON missed: an empty window counted 24 bytes and held 300.
 */
export const SMALL_WINDOWS: MemoryCase = {
  title: 'distinct searches with 0–1 results',
  searches: () => {
    const source = new SmallSearches();
    return () => source.next();
  },
  check: checkSmallSearchAnswer,
};

export interface MemoryResult {
  title: string;
  limitBytes: number;
  searches: number;
  responseBytes: number;
  before: GatewayStats;
  after: GatewayStats;
  /** Highest `cacheBytes` seen while the searches ran. */
  maxCacheBytes: number;
  peakRssBytes: number;
}

/**
 * Distinct searches of one case, whose answers add up to ten times the
 * cache's byte limit, against a gateway started with that limit; RSS is read
 * after full collections before and after.
 */
export async function runMemory(context: BenchContext, gateway: Server, limitBytes: number, memoryCase: MemoryCase): Promise<MemoryResult> {
  const nextSearch = memoryCase.searches(context);
  const client = new LoadClient(gateway.url, context.options.concurrency);
  const plan = (more: () => boolean): LoadPlan => ({
    more,
    next: () => graphqlRequest('/graphql', SEARCH_COMPANIES, { ...nextSearch(), pageSize: 50 }),
    check: memoryCase.check,
  });
  try {
    let settled = 0;
    const settling = await client.run(plan(() => settled++ < SETTLING_SEARCHES));
    const before = await gatewayStats(gateway, 'gc');

    let maxCacheBytes = before.cacheBytes;
    let peakRssBytes = before.rssBytes;
    const observe = (stats: GatewayStats) => {
      maxCacheBytes = Math.max(maxCacheBytes, stats.cacheBytes);
      peakRssBytes = Math.max(peakRssBytes, stats.rssBytes);
    };
    let polling = Promise.resolve();
    const poller = setInterval(() => {
      polling = polling.then(() => gatewayStats(gateway).then(observe));
    }, POLL_MS);
    let responseBytes = 0;
    const volume = VOLUME_FACTOR * limitBytes;
    const run = await client
      .run({
        ...plan(() => responseBytes < volume),
        check: (status, body) => {
          responseBytes += body.length;
          return memoryCase.check(status, body);
        },
      })
      .finally(() => clearInterval(poller));
    await polling;
    const after = await gatewayStats(gateway, 'gc');
    observe(after);

    const failures = settling.failures + run.failures;
    context.checks.record(
      `memory, ${memoryCase.title}: every answer 200 with the results expected and no errors`,
      failures === 0,
      failures === 0
        ? `${run.requests} answers`
        : `${failures} not: ${[...settling.failureSamples, ...run.failureSamples].slice(0, 3).join('; ')}`,
    );
    return { title: memoryCase.title, limitBytes, searches: run.requests, responseBytes, before, after, maxCacheBytes, peakRssBytes };
  } finally {
    await client.close();
  }
}
