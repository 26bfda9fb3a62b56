import { request } from 'undici';
import { cpuUs, type BenchContext } from '../context.js';
import { LoadClient } from '../load.js';
import { checkSearchAnswer, graphqlRequest, SEARCH_COMPANIES } from '../operations.js';
import { QueryCursor } from '../queries.js';
import { runInterleaved, summarize, type Contender, type Summary } from '../rounds.js';

export interface ColdResult {
  concurrency: number;
  /** The lookup service called directly, with a token, by the same load. */
  upstream: Summary;
  gateway: Summary;
  addedP50Ms: number;
  addedP99Ms: number;
}

/** Upper bound of searches one contender can use: its warm-up, then rounds in which none answers faster than the upstream's latency. */
function searchesNeeded(context: BenchContext): number {
  const { rounds, roundMs, coldConcurrency, coldWarmupRequests, concurrency, upstreamLatencyMs } = context.options;
  const perSecond = (coldConcurrency * 1000) / Math.max(upstreamLatencyMs, 1);
  return Math.min(60_000, coldWarmupRequests + concurrency + Math.ceil(((rounds * roundMs) / 1000) * perSecond * 1.05) + coldConcurrency);
}

async function serviceToken(context: BenchContext): Promise<string> {
  const { url, credentials } = context.lookup.started;
  const response = await request(`${url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: credentials.clientId, client_secret: credentials.clientSecret, grant_type: 'client_credentials' }),
  });
  const body = (await response.body.json()) as { access_token?: unknown };
  if (response.statusCode !== 200 || typeof body.access_token !== 'string') throw new Error(`The lookup service issued no token (${response.statusCode})`);
  return body.access_token;
}

function checkUpstreamAnswer(status: number, body: Buffer): string | undefined {
  if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
  const { total } = JSON.parse(body.toString('utf8')) as { total?: unknown };
  return typeof total === 'number' && total > 0 ? undefined : `no results: ${body.toString('utf8', 0, 300)}`;
}

/**
 * A new search on every request, against the upstream directly and through
 * the gateway, interleaved. Both walk the same sequence of searches, so both
 * see the same mix of answer sizes; the gateway never sees one twice.
 */
export async function runCold(context: BenchContext): Promise<ColdResult> {
  const { options, gateway, lookup, checks } = context;
  context.queries.prepare(searchesNeeded(context));
  const token = await serviceToken(context);
  const upstreamSearches = async () => (await context.lookupCounts()).searchRequests;
  const upstreamQueries = new QueryCursor(context.queries);
  const gatewayQueries = new QueryCursor(context.queries);
  const contenders: Contender[] = [
    {
      name: 'upstream',
      client: new LoadClient(lookup.started.url, options.coldConcurrency),
      warmup: { client: new LoadClient(lookup.started.url, options.concurrency), requests: options.coldWarmupRequests },
      plan: () => ({
        next: () => ({
          method: 'GET',
          path: `/v1/company/search?${new URLSearchParams({ ...upstreamQueries.next(), pageSize: '50' })}`,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        }),
        check: checkUpstreamAnswer,
      }),
      probes: { serverCpuUs: () => cpuUs(lookup) },
    },
    {
      name: 'gateway',
      client: new LoadClient(gateway.url, options.coldConcurrency),
      warmup: { client: new LoadClient(gateway.url, options.concurrency), requests: options.coldWarmupRequests },
      plan: () => ({
        next: () => graphqlRequest('/graphql', SEARCH_COMPANIES, { ...gatewayQueries.next(), pageSize: 50 }),
        check: checkSearchAnswer,
      }),
      probes: { serverCpuUs: () => cpuUs(gateway), upstreamCpuUs: () => cpuUs(lookup), upstreamSearches },
    },
  ];
  try {
    const runs = await runInterleaved(contenders, options, context.machine);
    const summaryOf = (name: string) => {
      const found = runs.get(name);
      if (found === undefined) throw new Error(`No rounds for ${name}`);
      return summarize(found);
    };
    const upstream = summaryOf('upstream');
    const gatewaySummary = summaryOf('gateway');
    for (const [name, summary] of [['upstream', upstream], ['gateway', gatewaySummary]] as const) {
      checks.record(
        `cold: every ${name} answer is 200 with results${name === 'gateway' ? ' and no errors' : ''}`,
        summary.failures === 0,
        summary.failures === 0 ? `${summary.requests} answers in measured rounds` : `${summary.failures} not: ${summary.failureSamples.join('; ')}`,
      );
    }
    const gatewayRounds = runs.get('gateway')?.rounds ?? [];
    const requests = gatewayRounds.reduce((sum, { run }) => sum + run.requests, 0);
    const searches = gatewayRounds.reduce((sum, { growth }) => sum + (growth.upstreamSearches ?? 0), 0);
    checks.record(
      'cold: every gateway request missed the cache (at least one upstream search each)',
      requests > 0 && searches >= requests,
      `${searches} upstream searches for ${requests} requests in measured rounds; ${gatewayQueries.used} distinct searches sent in all`,
    );
    return {
      concurrency: options.coldConcurrency,
      upstream,
      gateway: gatewaySummary,
      addedP50Ms: gatewaySummary.p50Ms - upstream.p50Ms,
      addedP99Ms: gatewaySummary.p99Ms - upstream.p99Ms,
    };
  } finally {
    await Promise.all(contenders.flatMap(({ client, warmup }) => [client.close(), ...(warmup ? [warmup.client.close()] : [])]));
  }
}
