import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { print } from 'graphql';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { GatewayProcess } from '../../support/gateway-process.js';
import { send } from '../../support/http.js';
import { PROCESS_START_MS, within } from '../../support/within.js';

/** A safety bound on the gateway's start and stop under tsx on a busy machine. */
const PROCESS_MS = PROCESS_START_MS;
const TEST_MS = 2 * PROCESS_MS + 10_000;

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string };
}

interface OtlpSpan {
  traceId: string;
  parentSpanId?: string;
  name: string;
  attributes: OtlpAttribute[];
}

interface OtlpTraces {
  resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

/** A stand-in OTLP collector: keeps every POST it gets and answers `collectorStatus` (200: a full success). */
const posted: { path: string | undefined; contentType: string | undefined; body: string }[] = [];
let collectorStatus = 200;
let collector: Server;
let collectorUrl: string;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      posted.push({ path: request.url, contentType: request.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(collectorStatus, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});
afterEach(() => {
  // Only if a test failed before stopping it.
  gateway?.kill();
  posted.length = 0;
});
afterAll(() => new Promise((resolve) => collector.close(resolve)));

/** The gateway as `npm start` runs it (embedded lookup service), traced to the collector over http/json; stopped by SIGTERM. */
async function startGateway(settings: Record<string, string> = {}) {
  gateway = await GatewayProcess.start({
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'gateway-under-test',
    ...settings,
  });
  const started = gateway;
  return {
    graphqlUrl: started.graphqlUrl,
    lines: () => started.lines,
    stop: async () => {
      started.signal('SIGTERM');
      return (await within(started.exited, PROCESS_MS, 'the gateway to stop')).code;
    },
  };
}

function search(graphqlUrl: string, variables: { q: string; jurisdiction: string }, headers: Record<string, string> = {}) {
  return send(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: print(DashboardSearchDocument), variables }),
  });
}

it(
  'sends one connected trace per request to the OTLP endpoint over http/json, the last spans when stopped',
  async () => {
    const gateway = await startGateway({ OTEL_RECORD_SEARCH_TERMS: 'true' });
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const answer = await search(
      gateway.graphqlUrl,
      { q: 'zebra quantum', jurisdiction: 'GB' },
      { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    );
    expect(answer.status).toBe(200);
    // The batch is sent at the latest when the gateway stops, which is what this waits for.
    expect(await gateway.stop()).toBe(0);

    expect(posted.length).toBeGreaterThan(0);
    for (const { path, contentType } of posted)
      expect({ path, contentType }).toEqual({ path: '/v1/traces', contentType: 'application/json' });
    const resourceSpans = posted.flatMap(({ body }) => (JSON.parse(body) as OtlpTraces).resourceSpans);
    for (const { resource } of resourceSpans) {
      expect(resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'gateway-under-test' } });
    }
    const spans = resourceSpans.flatMap(({ scopeSpans }) => scopeSpans.flatMap((scope) => scope.spans));
    // No token call: the gateway asked for its token as it started, outside any request (tracing.test.ts traces one made for a search).
    expect(spans.map((span) => span.name).sort()).toEqual([
      'GET /v1/company/search',
      'POST /graphql',
      'Query.searchCompanies',
      'query DashboardSearch',
      'search cache lookup',
    ]);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
    const attribute = (name: string, key: string) =>
      spans.find((span) => span.name === name)!.attributes.find((entry) => entry.key === key)?.value.stringValue;
    // OTEL_RECORD_SEARCH_TERMS=true: the terms are there (tracing.test.ts shows them absent by default).
    expect(attribute('Query.searchCompanies', 'search.q')).toBe('zebra quantum');
    expect(attribute('GET /v1/company/search', 'url.query')).toBe('?q=zebra+quantum&jurisdiction=GB&pageSize=50');
    expect(gateway.lines().find((line) => line.msg === 'request')).toMatchObject({ trace_id: traceId });
  },
  TEST_MS,
);

it(
  'warns, and still stops cleanly, when the collector refuses the last spans',
  async () => {
    collectorStatus = 400;
    try {
      const gateway = await startGateway();
      expect((await search(gateway.graphqlUrl, { q: 'holdings', jurisdiction: 'GB' })).status).toBe(200);
      expect(await gateway.stop()).toBe(0);
      expect(gateway.lines().filter((line) => line.msg === 'Tracing: the last spans could not be exported')).toHaveLength(1);
    } finally {
      collectorStatus = 200;
    }
  },
  TEST_MS,
);
