import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { print } from 'graphql';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { startTracing, type Tracing } from '../../src/gateway/observability/tracing.js';
import { DashboardSearchDocument } from '../generated/graphql.js';
import { freshSearch } from '../support/searches.js';
import { startStack, type Stack } from '../support/stack.js';

interface Posted {
  path: string | undefined;
  contentType: string | undefined;
  body: string;
}

interface OtlpSpan {
  traceId: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string } }[];
}

interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** A stand-in OTLP collector: keeps every POST it gets and answers `collectorStatus` (200: a full success). */
const posted: Posted[] = [];
let collectorStatus = 200;
let collector: Server;
let tracing: Tracing;
let stack: Stack;

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
  const { port } = collector.address() as AddressInfo;
  // The SDK reads the OTEL_* variables from the environment, as it does under `npm start`.
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${port}`);
  vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
  vi.stubEnv('OTEL_SERVICE_NAME', 'gateway-under-test');
  vi.stubEnv('OTEL_RECORD_SEARCH_TERMS', 'true');
  tracing = (await startTracing(readConfig(process.env).tracing))!;
  stack = await startStack({ tracing });
});
afterAll(async () => {
  await stack.close();
  await tracing.shutdown();
  vi.unstubAllEnvs();
  await new Promise((resolve) => collector.close(resolve));
});

it('sends the spans to the OTLP endpoint as JSON, search terms included where OTEL_RECORD_SEARCH_TERMS asks', async () => {
  const variables = freshSearch('zebra');
  const answer = await stack.post({ query: print(DashboardSearchDocument), variables });
  expect(answer.status).toBe(200);
  await tracing.forceFlush();

  // One post, unless the batch processor's own timer sent part of the spans first.
  expect(posted.length).toBeGreaterThan(0);
  for (const { path, contentType } of posted)
    expect({ path, contentType }).toEqual({ path: '/v1/traces', contentType: 'application/json' });
  const resourceSpans = posted.flatMap(({ body }) => (JSON.parse(body) as OtlpTraces).resourceSpans);
  for (const { resource } of resourceSpans) {
    expect(resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'gateway-under-test' } });
  }
  const spans = resourceSpans.flatMap(({ scopeSpans }) => scopeSpans.flatMap((scope) => scope.spans));
  expect(spans.map((span) => span.name).sort()).toEqual([
    'GET /v1/company/search',
    'POST /graphql',
    'POST /v1/oauth/token',
    'Query.searchCompanies',
    'query DashboardSearch',
    'search cache lookup',
  ]);
  expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  const attribute = (name: string, key: string) =>
    spans.find((span) => span.name === name)!.attributes.find((entry) => entry.key === key)?.value.stringValue;
  expect(attribute('Query.searchCompanies', 'search.q')).toBe(variables.q);
  expect(attribute('GET /v1/company/search', 'url.query')).toBe(
    `?${new URLSearchParams({ q: variables.q, jurisdiction: 'GB', pageSize: '50' })}`,
  );
});

// Last: it stops tracing.
it('warns, and still stops, when the collector refuses the last spans', async () => {
  const warnings: string[] = [];
  tracing.reportProblemsTo({ warn: (_details, message) => warnings.push(message) });
  collectorStatus = 400;
  await stack.post({ query: print(DashboardSearchDocument), variables: freshSearch() });
  await tracing.shutdown();
  expect(warnings).toEqual([expect.stringMatching(/^Tracing: the last spans could not be exported/)]);
});
