import { gatewayStats, type BenchContext, type Server } from '../context.js';
import { LoadClient, type LoadPlan } from '../load.js';
import { checkSearchAnswer, graphqlRequest, SEARCH_COMPANIES } from '../operations.js';
import type { GatewayStats } from '../protocol.js';
import { QueryCursor } from '../queries.js';

/** Distinct searches answered before the first RSS reading, so that it includes warm code and pools, not cached data. */
const SETTLING_SEARCHES = 50;
const VOLUME_FACTOR = 10;
const POLL_MS = 100;

export interface MemoryResult {
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
 * Distinct full-page searches whose answers add up to ten times the cache's
 * byte limit, against a gateway started with that limit; RSS is read after
 * full collections before and after.
 */
export async function runMemory(context: BenchContext, gateway: Server, limitBytes: number): Promise<MemoryResult> {
  const queries = new QueryCursor(context.queries);
  const client = new LoadClient(gateway.url, context.options.concurrency);
  const plan = (more: () => boolean): LoadPlan => ({
    more,
    next: () => graphqlRequest('/graphql', SEARCH_COMPANIES, { ...queries.next(), pageSize: 50 }),
    check: checkSearchAnswer,
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
          return checkSearchAnswer(status, body);
        },
      })
      .finally(() => clearInterval(poller));
    await polling;
    const after = await gatewayStats(gateway, 'gc');
    observe(after);

    const failures = settling.failures + run.failures;
    context.checks.record(
      'memory: every answer 200 with results and no errors',
      failures === 0,
      failures === 0 ? `${run.requests} answers` : `${failures} not: ${[...settling.failureSamples, ...run.failureSamples].slice(0, 3).join('; ')}`,
    );
    return { limitBytes, searches: run.requests, responseBytes, before, after, maxCacheBytes, peakRssBytes };
  } finally {
    await client.close();
  }
}
