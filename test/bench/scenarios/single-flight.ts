import { Client } from 'undici';
import type { BenchContext, Server } from '../context.js';
import { checkSearchAnswer, graphqlRequest, type Operation } from '../operations.js';
import type { LookupCounts } from '../protocol.js';

export const SINGLE_FLIGHT_REQUESTS = 200;
/**
 * While the burst runs, the upstream answers this slowly, far slower than the
 * gateway takes to read 200 requests, so that all of them are waiting on the
 * same search at once instead of finding it already cached.
 */
const BURST_SEARCH_LATENCY_MS = 1_000;
const BURST_TOKEN_LATENCY_MS = 200;

export interface SingleFlightResult {
  requests: number;
  /** Upstream calls since the gateway started, burst included. */
  searches: number;
  tokens: number;
  elapsedMs: number;
}

/**
 * 200 identical requests at once, on 200 connections opened beforehand, to a
 * gateway that has not yet searched or fetched a token (`countsAtStart` were
 * read before it started).
 */
export async function runSingleFlight(
  context: BenchContext,
  gateway: Server,
  countsAtStart: LookupCounts,
  operation: Operation,
  variables: Record<string, unknown>,
): Promise<SingleFlightResult> {
  const { checks, options, lookup } = context;
  const clients = Array.from({ length: SINGLE_FLIGHT_REQUESTS }, () => new Client(gateway.url, { pipelining: 1 }));
  try {
    await Promise.all(clients.map(async (client) => (await client.request({ method: 'GET', path: '/health' })).body.dump()));
    await lookup.child.call('knobs', { searchLatencyMs: BURST_SEARCH_LATENCY_MS, tokenLatencyMs: BURST_TOKEN_LATENCY_MS });
    const request = graphqlRequest('/graphql', operation, variables);
    const startedAt = performance.now();
    const answers = await Promise.all(
      clients.map(async (client) => {
        const response = await client.request(request);
        return { status: response.statusCode, body: Buffer.from(await response.body.arrayBuffer()) };
      }),
    );
    const elapsedMs = performance.now() - startedAt;
    const counts = await context.lookupCounts();

    const answer = answers[0]?.body ?? Buffer.alloc(0);
    const bad = answers.map(({ status, body }) => checkSearchAnswer(status, body)).filter((problem) => problem !== undefined);
    checks.record(
      `single-flight: all ${SINGLE_FLIGHT_REQUESTS} answers 200 with results and no errors`,
      bad.length === 0,
      bad.slice(0, 3).join('; '),
    );
    const differing = answers.filter(({ body }) => !body.equals(answer)).length;
    checks.record(
      `single-flight: all ${SINGLE_FLIGHT_REQUESTS} answers byte-identical`,
      differing === 0,
      differing === 0 ? '' : `${differing} differ from the first`,
    );
    return {
      requests: SINGLE_FLIGHT_REQUESTS,
      searches: counts.searchRequests - countsAtStart.searchRequests,
      tokens: counts.tokenRequests - countsAtStart.tokenRequests,
      elapsedMs,
    };
  } finally {
    await lookup.child.call('knobs', { searchLatencyMs: options.upstreamLatencyMs, tokenLatencyMs: 0 });
    await Promise.all(clients.map((client) => client.close()));
  }
}
