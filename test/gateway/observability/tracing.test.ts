import { propagation, SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { print } from 'graphql';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/gateway/logger.js';
import { startTracing, type Tracing } from '../../../src/gateway/observability/tracing.js';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { freshSearch } from '../../support/searches.js';
import { startStack, type Stack } from '../../support/stack.js';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let stack: Stack;

beforeAll(async () => {
  tracing = (await startTracing(
    { serviceName: 'gateway-under-test', recordSearchTerms: false },
    { spanProcessors: [new SimpleSpanProcessor({ exporter })] },
  ))!;
});
afterAll(() => tracing.shutdown());
// A gateway of its own for each test: its first search asks for the token, so every trace below holds both upstream calls.
beforeEach(async () => {
  stack = await startStack({ tracing, gateway: { responseCache: false } });
  exporter.reset();
});
afterEach(() => stack.close());

/** Every span ended so far. */
async function finishedSpans(): Promise<ReadableSpan[]> {
  await tracing.forceFlush();
  return exporter.getFinishedSpans();
}

function search(variables: { q: string; jurisdiction: string }, headers: Record<string, string> = {}) {
  return stack.post({ query: print(DashboardSearchDocument), variables }, headers);
}

function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const named = spans.filter((span) => span.name === name);
  expect(named.map((span) => span.name)).toEqual([name]);
  return named[0]!;
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

describe('traces', () => {
  it('follows one search from the client request down to each upstream call, in one connected trace', async () => {
    const answer = await search(freshSearch());
    expect(answer.status).toBe(200);

    const spans = await finishedSpans();
    const server = only(spans, 'POST /graphql');
    const operation = only(spans, 'query DashboardSearch');
    const resolver = only(spans, 'Query.searchCompanies');
    const lookup = only(spans, 'search cache lookup');
    const token = only(spans, 'POST /v1/oauth/token');
    const upstreamSearch = only(spans, 'GET /v1/company/search');

    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([server.spanContext().traceId]));
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(parentOf(server)).toBeUndefined();
    expect(parentOf(operation)).toBe(server.spanContext().spanId);
    expect(parentOf(resolver)).toBe(operation.spanContext().spanId);
    expect(parentOf(lookup)).toBe(resolver.spanContext().spanId);
    expect(parentOf(token)).toBe(lookup.spanContext().spanId);
    expect(parentOf(upstreamSearch)).toBe(lookup.spanContext().spanId);
    expect([token.kind, upstreamSearch.kind]).toEqual([SpanKind.CLIENT, SpanKind.CLIENT]);

    expect(server.attributes).toMatchObject({ 'http.route': '/graphql', 'http.response.status_code': 200 });
    expect(operation.attributes).toMatchObject({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'DashboardSearch' });
    expect(lookup.attributes).toMatchObject({ 'cache.window': 0, 'cache.result': 'miss' });
    expect(upstreamSearch.attributes).toMatchObject({ 'http.response.status_code': 200 });
  });

  it('sends each upstream call its own span as traceparent', async () => {
    await search(freshSearch());

    const spans = await finishedSpans();
    const traceparentOf = (span: ReadableSpan) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;
    expect(stack.lookup.counters.traceparents).toEqual([
      { path: '/v1/oauth/token', traceparent: traceparentOf(only(spans, 'POST /v1/oauth/token')) },
      { path: '/v1/company/search', traceparent: traceparentOf(only(spans, 'GET /v1/company/search')) },
    ]);
  });

  it("continues the client's trace when its request carries a traceparent", async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const parentSpanId = 'b7ad6b7169203331';
    await search(freshSearch(), { traceparent: `00-${traceId}-${parentSpanId}-01` });

    const spans = await finishedSpans();
    const server = only(spans, 'POST /graphql');
    expect(server.spanContext().traceId).toBe(traceId);
    expect(parentOf(server)).toBe(parentSpanId);
    expect(stack.lookup.counters.traceparents.map(({ traceparent }) => traceparent?.split('-')[1])).toEqual([traceId, traceId]);
  });

  it("passes on the trace context alone: a client's baggage header never reaches the upstream", () => {
    expect(propagation.fields()).toEqual(['traceparent', 'tracestate']);
  });

  it('records a cached window as fresh, without an upstream call', async () => {
    const variables = freshSearch();
    await search(variables);
    exporter.reset();
    await search(variables);

    const spans = await finishedSpans();
    expect(only(spans, 'search cache lookup').attributes['cache.result']).toBe('fresh');
    expect(spans.filter((span) => span.kind === SpanKind.CLIENT)).toEqual([]);
  });

  it('writes the trace and span ids on the log lines of a traced request', async () => {
    await search(freshSearch());

    const server = only(await finishedSpans(), 'POST /graphql');
    const requestLine = stack.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === 'request');
    expect(requestLine).toMatchObject({ trace_id: server.spanContext().traceId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it('writes lines outside any span as before, each with its own fields', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) }, tracing.logFields);
    logger.info({ url: 'http://127.0.0.1:4000' }, 'first');
    logger.info('second');
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({ url: 'http://127.0.0.1:4000', msg: 'first' });
    expect(second).not.toHaveProperty('url');
    expect([first, second].filter((line) => 'trace_id' in line!)).toEqual([]);
  });

  it('records neither the credentials, nor the token, nor the search terms, in any span', async () => {
    const variables = freshSearch('zebra');
    await search(variables);

    const spans = await finishedSpans();
    const recorded = JSON.stringify(
      spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status, links: span.links })),
    );
    const { clientId, clientSecret } = stack.lookup.credentials;
    const tokens = stack.lookup.knobs.issuedTokens();
    expect(tokens).toHaveLength(1);
    for (const secret of [clientId, clientSecret, ...tokens, variables.q, encodeURIComponent(variables.q), 'zebra']) {
      expect(recorded).not.toContain(secret);
    }
    expect(only(spans, 'GET /v1/company/search').attributes['url.query']).toMatch(/^\?q=REDACTED&jurisdiction=GB&pageSize=50$/);
  });
});
