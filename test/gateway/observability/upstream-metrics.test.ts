import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/gateway/access/api-keys.js';
import { manualClock } from '../../support/clock.js';
import { json } from '../../support/http.js';
import { changes, moved, scrape } from '../../support/metrics.js';
import { startStack } from '../../support/stack.js';
import { eventually } from '../../support/within.js';

const search = (q: string) => ({ query: `{ searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount } }` });

describe('metrics of the upstream client', () => {
  it('counts the calls an open circuit holds back, and shows the circuit open', async () => {
    const clock = manualClock();
    const stack = await startStack({
      clock,
      gateway: { metricsPort: 0, upstreamBreakerFailures: 1, upstreamRetries: 0, upstreamBreakerCooldownMs: 10_000 },
    });
    try {
      const metricsUrl = stack.gateway.metricsUrl!;
      await stack.post(search('warm up'));
      stack.lookup.knobs.failSearch({ status: 503 }, 1);
      const before = await scrape(metricsUrl);
      expect(before.series.get('csg_upstream_circuit_state{state="closed"}')).toBe(1);
      await stack.post(search('opens the circuit'));
      await stack.post(search('held back'));
      const after = await scrape(metricsUrl);
      expect(moved(before, after, 'csg_upstream_calls')).toEqual({
        'csg_upstream_calls_total{endpoint="/v1/company/search",status_class="5xx",outcome="http_error"}': 1,
        'csg_upstream_calls_held_back_total{reason="circuit_open"}': 1,
      });
      expect(changes(before, after, ['csg_upstream_circuit_state{state="open"}', 'csg_upstream_circuit_state{state="closed"}'])).toEqual({
        'csg_upstream_circuit_state{state="open"}': 1,
        'csg_upstream_circuit_state{state="closed"}': -1,
      });
      clock.advance(10_000);
      expect((await scrape(metricsUrl)).series.get('csg_upstream_circuit_state{state="half-open"}')).toBe(1);
    } finally {
      await stack.close();
    }
  });

  it('counts a renewal of an expired token, and shows the seconds it has left by the gateway clock', async () => {
    const clock = manualClock();
    const stack = await startStack({ clock, lookup: { tokenLifetimeSeconds: 3_600 }, gateway: { metricsPort: 0 } });
    try {
      const metricsUrl = stack.gateway.metricsUrl!;
      const before = await scrape(metricsUrl);
      await stack.post(search('first token'));
      const first = await scrape(metricsUrl);
      expect(moved(before, first, 'csg_upstream_token_renewals_total')).toEqual({
        'csg_upstream_token_renewals_total{trigger="initial",result="success"}': 1,
      });
      expect(first.series.get('csg_upstream_token_expiry_seconds')).toBe(3_600);
      clock.advance(3_600_000);
      await stack.post(search('after expiry'));
      const after = await scrape(metricsUrl);
      expect(moved(first, after, 'csg_upstream_token_renewals_total')).toEqual({
        'csg_upstream_token_renewals_total{trigger="expired",result="success"}': 1,
      });
      expect(stack.lookup.counters.tokenRequests).toBe(2);
    } finally {
      await stack.close();
    }
  });

  it('counts a renewal ahead of expiry as early, made while the old token still serves', async () => {
    const clock = manualClock();
    const stack = await startStack({ clock, lookup: { tokenLifetimeSeconds: 3_600 }, gateway: { metricsPort: 0 } });
    try {
      const metricsUrl = stack.gateway.metricsUrl!;
      await stack.post(search('first token'));
      const first = await scrape(metricsUrl);
      // Past the refresh point (an hour less its 60 s margin), not yet expired: the search goes on with the old token.
      clock.advance(3_600_000 - 30_000);
      expect((await stack.post(search('near expiry'))).status).toBe(200);
      await eventually(() => expect(stack.lookup.counters.tokenRequests).toBe(2));
      await eventually(
        async () =>
          expect(moved(first, await scrape(metricsUrl), 'csg_upstream_token_renewals_total')).toEqual({
            'csg_upstream_token_renewals_total{trigger="early",result="success"}': 1,
          }),
        10,
      );
      expect((await scrape(metricsUrl)).series.get('csg_upstream_token_expiry_seconds')).toBe(3_600);
    } finally {
      await stack.close();
    }
  });

  it('counts refused credentials at start, reports them in /ready and logs an error naming UPSTREAM_CLIENT_ID, never the secret', async () => {
    const stack = await startStack({ tokenAtStart: true, clientId: 'not-our-client', gateway: { metricsPort: 0 } });
    try {
      await stack.gateway.tokenAtStart;
      const { series } = await scrape(stack.gateway.metricsUrl!);
      expect(series.get('csg_upstream_token_renewals_total{trigger="initial",result="credentials_refused"}')).toBe(1);
      const ready = await stack.get('/ready');
      expect(ready.status).toBe(200);
      expect(json(ready)).toEqual({ status: 'ready', upstream: { token: 'refused', circuit: 'closed' } });
      const errors = stack.logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter(({ level }) => level >= 50);
      expect(errors).toEqual([expect.objectContaining({ clientId: 'not-our-client', msg: expect.stringContaining('UPSTREAM_CLIENT_ID') })]);
      expect(stack.logs.filter((line) => line.includes(stack.lookup.credentials.clientSecret))).toEqual([]);
    } finally {
      await stack.close();
    }
  });
});

describe('metrics of the rate limit', () => {
  it('counts a refusal by client kind and configured key id', async () => {
    const key = 'k'.repeat(40);
    const stack = await startStack({
      gateway: {
        metricsPort: 0,
        apiKeys: [{ id: 'web', sha256: hashApiKey(key) }],
        allowAnonymous: false,
        rateLimitPerMinute: 1,
        rateLimitBurst: 1,
      },
    });
    try {
      const before = await scrape(stack.gateway.metricsUrl!);
      expect((await stack.post(search('once'), { 'x-api-key': key })).status).toBe(200);
      expect((await stack.post(search('twice'), { 'x-api-key': key })).status).toBe(429);
      const after = await scrape(stack.gateway.metricsUrl!);
      expect(moved(before, after, 'csg_rate_limit_refusals_total')).toEqual({
        'csg_rate_limit_refusals_total{client_kind="api-key",api_key="web"}': 1,
      });
      expect(moved(before, after, 'csg_http_refusals_total')).toEqual({ 'csg_http_refusals_total{code="RATE_LIMITED"}': 1 });
    } finally {
      await stack.close();
    }
  });

  it('counts a key added by a reload under api_key="added since start", since label values are fixed at start', async () => {
    const [key, added] = ['k'.repeat(40), 'a'.repeat(40)];
    const web = { id: 'web', sha256: hashApiKey(key) };
    const stack = await startStack({
      gateway: { metricsPort: 0, apiKeys: [web], allowAnonymous: false, rateLimitPerMinute: 1, rateLimitBurst: 1 },
    });
    try {
      stack.gateway.reload({
        apiKeys: [web, { id: 'app', sha256: hashApiKey(added) }],
        jwt: undefined,
        allowAnonymous: false,
        trustedDocuments: undefined,
      });
      const before = await scrape(stack.gateway.metricsUrl!);
      expect((await stack.post(search('once'), { 'x-api-key': added })).status).toBe(200);
      expect((await stack.post(search('twice'), { 'x-api-key': added })).status).toBe(429);
      const after = await scrape(stack.gateway.metricsUrl!);
      expect(moved(before, after, 'csg_rate_limit_refusals_total')).toEqual({
        'csg_rate_limit_refusals_total{client_kind="api-key",api_key="added since start"}': 1,
      });
    } finally {
      await stack.close();
    }
  });
});
