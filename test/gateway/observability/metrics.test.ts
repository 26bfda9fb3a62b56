import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { send } from '../../support/http.js';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { createLogger } from '../../../src/gateway/logger.js';
import { optionsOf } from '../../../src/gateway/options-from-settings.js';
import { startGateway } from '../../../src/gateway/server.js';
import { changes, moved, promtoolProblems, scrape } from '../../support/metrics.js';
import { startStack, type Stack } from '../../support/stack.js';

const search = (q: string) => ({ query: `{ searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount } }` });

let stack: Stack;
let metricsUrl: string;

beforeAll(async () => {
  stack = await startStack({ gateway: { metricsPort: 0, upstreamRetryBaseMs: 1 } });
  metricsUrl = stack.gateway.metricsUrl!;
});
afterAll(() => stack.close());

describe('GET /metrics', () => {
  it('passes promtool check metrics', async () => {
    await stack.post(search('promtool'));
    const { text } = await scrape(metricsUrl);
    expect(text).toContain('csg_http_requests_total');
    expect(promtoolProblems(text)).toBe('');
  });

  it('counts a miss, then the same request answered from the response cache', async () => {
    const before = await scrape(metricsUrl);
    expect((await stack.post(search('Zebra Quantum'))).status).toBe(200);
    expect((await stack.post(search('Zebra Quantum'))).status).toBe(200);
    const after = await scrape(metricsUrl);
    expect(moved(before, after, 'csg_http_requests_total')).toEqual({
      'csg_http_requests_total{outcome="graphql"}': 1,
      'csg_http_requests_total{outcome="response_cache"}': 1,
    });
    expect(moved(before, after, 'csg_cache_lookups_total')).toEqual({
      'csg_cache_lookups_total{level="response",result="miss"}': 1,
      'csg_cache_lookups_total{level="response",result="fresh"}': 1,
      'csg_cache_lookups_total{level="upstream_window",result="miss"}': 1,
    });
    expect(moved(before, after, 'csg_upstream_calls_total')).toEqual({
      'csg_upstream_calls_total{endpoint="/v1/company/search",status_class="2xx",outcome="success"}': 1,
    });
    expect(
      changes(before, after, [
        'csg_http_request_duration_seconds_count{outcome="graphql"}',
        'csg_http_request_duration_seconds_count{outcome="response_cache"}',
        'csg_graphql_phase_duration_seconds_count{phase="execute"}',
        'csg_upstream_call_duration_seconds_count{endpoint="/v1/company/search"}',
        'csg_upstream_slot_wait_seconds_count',
      ]),
    ).toEqual({
      'csg_http_request_duration_seconds_count{outcome="graphql"}': 1,
      'csg_http_request_duration_seconds_count{outcome="response_cache"}': 1,
      'csg_graphql_phase_duration_seconds_count{phase="execute"}': 1,
      'csg_upstream_call_duration_seconds_count{endpoint="/v1/company/search"}': 1,
      csg_upstream_slot_wait_seconds_count: 1,
    });
  });

  it('counts a window lookup that joins a fetch already in flight', async () => {
    const before = await scrape(metricsUrl);
    const twice =
      '{ a: searchCompanies(q: "joined", jurisdiction: "GB", first: 1) { totalCount } b: searchCompanies(q: "joined", jurisdiction: "GB", first: 2) { totalCount } }';
    expect((await stack.post({ query: twice })).status).toBe(200);
    const after = await scrape(metricsUrl);
    expect(moved(before, after, 'csg_cache_lookups_total{level="upstream_window"')).toEqual({
      'csg_cache_lookups_total{level="upstream_window",result="miss"}': 1,
      'csg_cache_lookups_total{level="upstream_window",result="joined"}': 1,
    });
    expect(moved(before, after, 'csg_upstream_calls_total')).toEqual({
      'csg_upstream_calls_total{endpoint="/v1/company/search",status_class="2xx",outcome="success"}': 1,
    });
  });

  it('counts a refusal by its code, and a GraphQL error by its code', async () => {
    const before = await scrape(metricsUrl);
    expect((await stack.post(search('x'), { 'content-type': 'application/xml' })).status).toBe(415);
    expect((await stack.post({ query: '{ nope }' })).status).toBe(400);
    const after = await scrape(metricsUrl);
    expect(moved(before, after, 'csg_http_re')).toMatchObject({
      'csg_http_requests_total{outcome="refused"}': 1,
      'csg_http_requests_total{outcome="graphql"}': 1,
      'csg_http_refusals_total{code="UNSUPPORTED_MEDIA_TYPE"}': 1,
    });
    expect(moved(before, after, 'csg_graphql_errors_total')).toEqual({ 'csg_graphql_errors_total{code="GRAPHQL_VALIDATION_FAILED"}': 1 });
  });

  it('counts an upstream 503, its retry and the success after it', async () => {
    stack.lookup.knobs.failSearch({ status: 503 }, 1);
    const before = await scrape(metricsUrl);
    expect((await stack.post(search('retried once'))).status).toBe(200);
    const after = await scrape(metricsUrl);
    expect(moved(before, after, 'csg_upstream_calls_total')).toEqual({
      'csg_upstream_calls_total{endpoint="/v1/company/search",status_class="5xx",outcome="http_error"}': 1,
      'csg_upstream_calls_total{endpoint="/v1/company/search",status_class="2xx",outcome="success"}': 1,
    });
    expect(moved(before, after, 'csg_upstream_retries_total')).toEqual({ 'csg_upstream_retries_total{endpoint="/v1/company/search"}': 1 });
  });

  it('counts the token renewed after the upstream refused the current one', async () => {
    await stack.post(search('before revocation'));
    stack.lookup.knobs.revokeTokens();
    const before = await scrape(metricsUrl);
    expect((await stack.post(search('after revocation'))).status).toBe(200);
    const after = await scrape(metricsUrl);
    expect(moved(before, after, 'csg_upstream_token_renewals_total')).toEqual({
      'csg_upstream_token_renewals_total{trigger="refused",result="success"}': 1,
    });
    expect(moved(before, after, 'csg_upstream_calls_total')).toEqual({
      'csg_upstream_calls_total{endpoint="/v1/company/search",status_class="4xx",outcome="http_error"}': 1,
      'csg_upstream_calls_total{endpoint="/v1/oauth/token",status_class="2xx",outcome="success"}': 1,
      'csg_upstream_calls_total{endpoint="/v1/company/search",status_class="2xx",outcome="success"}': 1,
    });
    expect(after.series.get('csg_upstream_token_expiry_seconds')).toBeGreaterThan(0);
  });

  it('shows the bytes each cache holds', async () => {
    const { series } = await scrape(metricsUrl);
    expect(series.get('csg_cache_bytes{cache="upstream_windows"}')).toBe(
      stack.gateway.cacheBytes - series.get('csg_cache_bytes{cache="responses"}')! - series.get('csg_cache_bytes{cache="documents"}')!,
    );
    expect(series.get('csg_cache_bytes{cache="responses"}')).toBeGreaterThan(0);
  });

  it("shows Node's own metrics", async () => {
    const { series } = await scrape(metricsUrl);
    expect(
      [...series.keys()]
        .filter((name) => /^(nodejs_eventloop_lag_p99_seconds|nodejs_heap_size_used_bytes|process_cpu_seconds_total)$/.test(name))
        .sort(),
    ).toEqual(['nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_seconds_total']);
  });

  it('is never served on the public port', async () => {
    expect((await stack.get('/metrics')).status).toBe(404);
    expect((await send(metricsUrl.replace(/\/metrics$/, '/graphql'))).status).toBe(404);
    expect((await send(metricsUrl, { method: 'POST' })).status).toBe(404);
    expect(new URL(metricsUrl).port).not.toBe(new URL(stack.gateway.url).port);
  });
});

describe('without METRICS_PORT', () => {
  it('runs no metrics server', async () => {
    const plain = await startStack();
    try {
      expect(plain.gateway.metricsUrl).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

describe('a METRICS_PORT already taken', () => {
  it('fails the start and leaves the public port free', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const metricsPort = (taken.address() as AddressInfo).port;
    const publicPort = await freePort();
    try {
      const config = { ...readConfig({}), port: publicPort, metricsPort, logLevel: 'silent' as const };
      const target = { url: new URL('http://127.0.0.1:9'), clientId: 'id', clientSecret: 'secret' };
      await expect(
        startGateway({ ...optionsOf(config).gateway, target, logger: createLogger('silent'), tokenAtStart: false }),
      ).rejects.toThrow(
        `METRICS_PORT=${metricsPort}: 127.0.0.1:${metricsPort} is already in use (EADDRINUSE) by another process; stop it, or set METRICS_PORT to a free port (0 lets the system choose one)`,
      );
      const again = createServer();
      await new Promise<void>((resolve, reject) => again.once('error', reject).listen(publicPort, '127.0.0.1', resolve));
      await new Promise((resolve) => again.close(resolve));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
