import { cpuUs, type BenchContext } from '../context.js';
import { LoadClient } from '../load.js';
import { checkSearchAnswer, graphqlRequest, SEARCH_COMPANIES } from '../operations.js';
import { QueryCursor } from '../queries.js';
import { type ContenderRuns, runInterleaved, summarize, type Contender, type Summary } from '../rounds.js';
import { accessToken } from '../../support/lookup-client.js';

export interface ColdResult {
  concurrency: number;
  /** The lookup service called directly, with a token, by the same load. */
  upstream: Summary;
  /** A bare node:http proxy (children/proxy-server.ts): the least any gateway adds. */
  proxy: Summary;
  gateway: Summary;
  /** With --baseline: that checkout's gateway, in the same rounds, and the gateway's CPU per request over its, round by round. */
  checkoutBaseline: { commit: string; summary: Summary; pairedRatios: number[] } | undefined;
  addedP50Ms: number;
  addedP99Ms: number;
  /** What the bare proxy adds over the upstream: the floor under `addedP50Ms` and `addedP99Ms` on this machine. */
  proxyAddedP50Ms: number;
  proxyAddedP99Ms: number;
}

/**
 * The upstream's largest page, which is what the gateway asks it for whatever
 * the client's page size: asking for it everywhere gives the lookup service
 * the same work for every contender.
 */
const PAGE_SIZE = 50;

/** How a run of cold searches is laid out, for counting the searches it can use. */
export interface ColdRun {
  rounds: number;
  roundMs: number;
  upstreamLatencyMs: number;
  warmupRequests: number;
  /** Requests in flight during the warm-up, and during the rounds. */
  warmupInFlight: number;
  inFlight: number;
}

/**
 * Upper bound of searches one contender can use: its warm-up, then rounds in
 * which none answers faster than the upstream's latency. Every contender's
 * cursor walks the same sequence from its start, so this is all the source
 * must hold, however many contenders there are.
 */
export function coldSearchesNeeded({ rounds, roundMs, upstreamLatencyMs, warmupRequests, warmupInFlight, inFlight }: ColdRun): number {
  const perSecond = (inFlight * 1000) / Math.max(upstreamLatencyMs, 1);
  return Math.min(60_000, warmupRequests + warmupInFlight + Math.ceil(((rounds * roundMs) / 1000) * perSecond * 1.05) + inFlight);
}

/** A new GraphQL search (the full card query, a full upstream page) per request, walking the shared sequence through `queries`. */
export function coldGraphqlSearches(queries: QueryCursor): Contender['plan'] {
  return () => ({
    next: () => graphqlRequest('/graphql', SEARCH_COMPANIES, { ...queries.next(), pageSize: PAGE_SIZE }),
    check: checkSearchAnswer,
  });
}

function checkUpstreamAnswer(status: number, body: Buffer): string | undefined {
  if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
  const { total } = JSON.parse(body.toString('utf8')) as { total?: unknown };
  return typeof total === 'number' && total > 0 ? undefined : `no results: ${body.toString('utf8', 0, 300)}`;
}

/**
 * A new search on every request, against the upstream directly, through a
 * bare proxy and through the gateway, interleaved. All walk the same sequence
 * of searches, so all see the same mix of answer sizes; the gateway never
 * sees one twice.
 */
export async function runCold(context: BenchContext): Promise<ColdResult> {
  const { options, gateway, proxy, lookup, checks, checkoutBaseline } = context;
  context.queries.prepare(
    coldSearchesNeeded({
      rounds: options.coldRounds,
      roundMs: options.roundMs,
      upstreamLatencyMs: options.upstreamLatencyMs,
      warmupRequests: options.coldWarmupRequests,
      warmupInFlight: options.concurrency,
      inFlight: options.coldConcurrency,
    }),
  );
  const token = await accessToken(lookup.started);
  const upstreamSearches = async () => (await context.lookupCounts()).searchRequests;
  const upstreamQueries = new QueryCursor(context.queries);
  const gatewayQueries = new QueryCursor(context.queries);
  /** A contender at `url`, one request in flight in its rounds, warmed up with the same count of searches as the others. */
  const contender = (name: string, url: string, plan: Contender['plan'], probes: Contender['probes']): Contender => ({
    name,
    client: new LoadClient(url, options.coldConcurrency),
    warmup: { client: new LoadClient(url, options.concurrency), requests: options.coldWarmupRequests },
    plan,
    probes,
  });
  const contenders: Contender[] = [
    contender(
      'upstream',
      lookup.started.url,
      () => ({
        next: () => ({
          method: 'GET',
          path: `/v1/company/search?${new URLSearchParams({ ...upstreamQueries.next(), pageSize: String(PAGE_SIZE) })}`,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        }),
        check: checkUpstreamAnswer,
      }),
      { serverCpuUs: () => cpuUs(lookup) },
    ),
    contender('bare proxy', proxy.url, coldGraphqlSearches(new QueryCursor(context.queries)), {
      serverCpuUs: () => cpuUs(proxy),
      upstreamCpuUs: () => cpuUs(lookup),
    }),
    contender('gateway', gateway.url, coldGraphqlSearches(gatewayQueries), {
      serverCpuUs: () => cpuUs(gateway),
      upstreamCpuUs: () => cpuUs(lookup),
      upstreamSearches,
    }),
    // Next to the gateway, so that each of its rounds runs beside one of this gateway's (rounds alternate their order).
    ...(checkoutBaseline === undefined
      ? []
      : [
          contender(checkoutBaseline.name, checkoutBaseline.url, coldGraphqlSearches(new QueryCursor(context.queries)), {
            serverCpuUs: () => cpuUs(checkoutBaseline),
            upstreamCpuUs: () => cpuUs(lookup),
          }),
        ]),
  ];
  try {
    const runs = await runInterleaved(contenders, { ...options, rounds: options.coldRounds }, context.machine);
    const summaryOf = (name: string) => {
      const found = runs.get(name);
      if (found === undefined) throw new Error(`No rounds for ${name}`);
      return summarize(found);
    };
    const upstream = summaryOf('upstream');
    const proxySummary = summaryOf('bare proxy');
    const gatewaySummary = summaryOf('gateway');
    const baselineSummary = checkoutBaseline && summaryOf(checkoutBaseline.name);
    for (const [name, summary] of [
      ['upstream', upstream],
      ['bare proxy', proxySummary],
      ['gateway', gatewaySummary],
      ...(baselineSummary === undefined ? [] : [[checkoutBaseline!.name, baselineSummary] as const]),
    ] as const) {
      checks.record(
        `cold: every ${name} answer is 200 with results${name === 'upstream' ? '' : ' and no errors'}`,
        summary.failures === 0,
        summary.failures === 0
          ? `${summary.requests} answers in measured rounds`
          : `${summary.failures} not: ${summary.failureSamples.join('; ')}`,
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
      proxy: proxySummary,
      gateway: gatewaySummary,
      checkoutBaseline:
        checkoutBaseline && baselineSummary
          ? {
              commit: checkoutBaseline.commit,
              summary: baselineSummary,
              pairedRatios: pairedCpuRatios(runs, 'gateway', checkoutBaseline.name),
            }
          : undefined,
      addedP50Ms: gatewaySummary.p50Ms - upstream.p50Ms,
      addedP99Ms: gatewaySummary.p99Ms - upstream.p99Ms,
      proxyAddedP50Ms: proxySummary.p50Ms - upstream.p50Ms,
      proxyAddedP99Ms: proxySummary.p99Ms - upstream.p99Ms,
    };
  } finally {
    await Promise.all(contenders.flatMap(({ client, warmup }) => [client.close(), ...(warmup ? [warmup.client.close()] : [])]));
  }
}

/**
 * `name`'s server CPU per request over `baseline`'s, one per round: each
 * pair of rounds ran next to each other, and the machine drifts between
 * rounds far more than within a pair.
 */
export function pairedCpuRatios(runs: Map<string, ContenderRuns>, name: string, baseline: string): number[] {
  const perRequest = (contender: string) =>
    (runs.get(contender)?.rounds ?? []).map(({ run, growth }) => (growth.serverCpuUs ?? Number.NaN) / run.requests);
  const baselines = perRequest(baseline);
  return perRequest(name).map((cpu, round) => cpu / (baselines[round] ?? Number.NaN));
}
