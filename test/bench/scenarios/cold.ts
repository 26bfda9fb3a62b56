import { cpuUs, gatewayStats, serverReadings, type BenchContext } from '../context.js';
import { LoadClient } from '../load.js';
import { checkSearchAnswer, graphqlRequest, SEARCH_COMPANIES, withoutFetchedAt } from '../operations.js';
import { QueryCursor } from '../queries.js';
import { cpuPerRequest, ratiosOfPairs, runInterleaved, summarize, type Contender, type Summary } from '../rounds.js';
import type { GatewayStats } from '../../harness/protocol.js';
import { accessToken } from '../../support/lookup-client.js';
import { send } from '../../support/http.js';

export interface ColdResult {
  concurrency: number;
  /** The lookup service called directly, with a token, by the same load. */
  upstream: Summary;
  /** A bare node:http proxy (children/proxy-server.ts): the least any gateway adds. */
  proxy: Summary;
  gateway: Summary;
  /** The plain Mercurius server (children/mercurius-server.ts). */
  peer: Summary;
  /** With --baseline: that checkout's gateway, in the same rounds, and the gateway's CPU per request over its, round by round. */
  checkoutBaseline: { commit: string; summary: Summary; pairedRatios: number[] } | undefined;
  /** The gateway's process: right after it started, after the cold warm-up (caches full), and after the cold rounds. */
  gatewayMemory: { cacheMaxBytes: number; atStart: GatewayStats; afterWarmup: GatewayStats; afterCold: GatewayStats };
}

/** Latency a summary adds over the upstream called directly, at p50 and p99. */
export function addedMs(cold: Pick<ColdResult, 'upstream'>, summary: Summary): { p50: number; p99: number } {
  return { p50: summary.p50Ms - cold.upstream.p50Ms, p99: summary.p99Ms - cold.upstream.p99Ms };
}

/** New searches whose answers the gateway, the --baseline gateway and the peer are compared on after the rounds. */
const COMPARED_SEARCHES = 10;

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
  const { options, gateway, proxy, peer, lookup, checks, checkoutBaseline } = context;
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
  const contender = (name: string, url: string, plan: Contender['plan'], readings: Pick<Contender, 'probes' | 'peaks'>): Contender => ({
    name,
    client: new LoadClient(url, options.coldConcurrency),
    warmup: { client: new LoadClient(url, options.concurrency), requests: options.coldWarmupRequests },
    plan,
    ...readings,
  });
  /** A server in front of the lookup service: its own CPU and GC, and the lookup service's CPU. */
  const inFront = (server: Parameters<typeof serverReadings>[0]) => {
    const { probes, peaks } = serverReadings(server);
    return { probes: { ...probes, upstreamCpuUs: () => cpuUs(lookup) }, peaks };
  };
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
      { probes: { serverCpuUs: () => cpuUs(lookup) } },
    ),
    contender('bare proxy', proxy.url, coldGraphqlSearches(new QueryCursor(context.queries)), inFront(proxy)),
    contender('peer', peer.url, coldGraphqlSearches(new QueryCursor(context.queries)), inFront(peer)),
    contender('gateway', gateway.url, coldGraphqlSearches(gatewayQueries), {
      ...inFront(gateway),
      probes: { ...inFront(gateway).probes, upstreamSearches },
    }),
    // Next to the gateway, so that each of its rounds runs beside one of this gateway's (rounds alternate their order).
    ...(checkoutBaseline === undefined
      ? []
      : [
          contender(
            checkoutBaseline.name,
            checkoutBaseline.url,
            coldGraphqlSearches(new QueryCursor(context.queries)),
            inFront(checkoutBaseline),
          ),
        ]),
  ];
  let afterWarmup: GatewayStats | undefined;
  try {
    const runs = await runInterleaved(
      contenders,
      {
        ...options,
        rounds: options.coldRounds,
        afterWarmup: async () => {
          afterWarmup = await gatewayStats(gateway);
        },
      },
      context.machine,
    );
    const afterCold = await gatewayStats(gateway);
    const summaryOf = (name: string) => {
      const found = runs.get(name);
      if (found === undefined) throw new Error(`No rounds for ${name}`);
      return summarize(found);
    };
    const upstream = summaryOf('upstream');
    const proxySummary = summaryOf('bare proxy');
    const peerSummary = summaryOf('peer');
    const gatewaySummary = summaryOf('gateway');
    const baselineSummary = checkoutBaseline && summaryOf(checkoutBaseline.name);
    for (const [name, summary] of [
      ['upstream', upstream],
      ['bare proxy', proxySummary],
      ['peer', peerSummary],
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
    await compareAnswers(context, gatewayQueries);
    if (afterWarmup === undefined) throw new Error('The cold warm-up did not end');
    return {
      concurrency: options.coldConcurrency,
      upstream,
      proxy: proxySummary,
      peer: peerSummary,
      gateway: gatewaySummary,
      checkoutBaseline:
        checkoutBaseline && baselineSummary
          ? {
              commit: checkoutBaseline.commit,
              summary: baselineSummary,
              pairedRatios: ratiosOfPairs(runs, 'gateway', checkoutBaseline.name, cpuPerRequest),
            }
          : undefined,
      gatewayMemory: { cacheMaxBytes: gateway.cacheMaxBytes, atStart: gateway.atStart, afterWarmup, afterCold },
    };
  } finally {
    await Promise.all(contenders.flatMap(({ client, warmup }) => [client.close(), ...(warmup ? [warmup.client.close()] : [])]));
  }
}

/**
 * New searches, none sent before, to the gateway and the --baseline gateway:
 * their answers must be the same bytes but for `fetchedAt` (a change to how
 * windows are held must not change an answer).
 */
async function compareAnswers(context: BenchContext, queries: QueryCursor): Promise<void> {
  const { gateway, checkoutBaseline, checks } = context;
  if (checkoutBaseline === undefined) return;
  const differences: string[] = [];
  for (let i = 0; i < COMPARED_SEARCHES; i++) {
    const variables = queries.next();
    const request = graphqlRequest('/graphql', SEARCH_COMPANIES, { ...variables, pageSize: PAGE_SIZE });
    const [ours, theirs] = await Promise.all([send(gateway.url, request), send(checkoutBaseline.url, request)]);
    if (ours.status !== theirs.status || !withoutFetchedAt(ours.body).equals(withoutFetchedAt(theirs.body))) {
      differences.push(
        `${JSON.stringify(variables)}: ${ours.status} ${ours.body.length} B against ${theirs.status} ${theirs.body.length} B`,
      );
    }
  }
  checks.record(
    `cold: ${COMPARED_SEARCHES} new searches answered by the gateway as by the --baseline gateway, byte for byte but for fetchedAt`,
    differences.length === 0,
    differences.slice(0, 3).join('; '),
  );
}
