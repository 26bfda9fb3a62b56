import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../../support/http.js';
import { moved, scrape } from '../../support/metrics.js';
import { openConnection, type RawConnection } from '../../support/raw-connection.js';
import { startStack, type Stack } from '../../support/stack.js';
import { eventually } from '../../support/within.js';

const search = (q: string) => `searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount }`;
/** Nullable, so that both failures reach the answer (a failed non-null root field ends the operation). */
const company = (number: string) => `company(companyNumber: "${number}", jurisdiction: "GB") { name }`;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("csg_http_requests_failed_total: the availability SLO's bad events", () => {
  it("counts a GraphQL answer holding the upstream's failures once, and none of the client's errors", async () => {
    // No retry and no breaker opening: each failure the lookup service is told to give reaches the answer.
    stack = await startStack({ gateway: { metricsPort: 0, upstreamRetries: 0, upstreamBreakerFailures: 100 } });
    const metricsUrl = stack.gateway.metricsUrl!;
    const before = await scrape(metricsUrl);

    stack.lookup.knobs.failSearch({ status: 503 }, 2);
    const twoFailures = await stack.post({ query: `{ a: ${company('00000001')} b: ${company('00000002')} }` });
    expect(JSON.parse(twoFailures.text).errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([
      'UPSTREAM_UNAVAILABLE',
      'UPSTREAM_UNAVAILABLE',
    ]);
    stack.lookup.knobs.failSearch({ status: 400 }, 1);
    expect(JSON.parse((await stack.post({ query: `{ ${search('rejected')} }` })).text).errors[0].extensions.code).toBe(
      'UPSTREAM_REJECTED_QUERY',
    );
    expect((await stack.post({ query: '{ nope }' })).status).toBe(400);
    expect((await stack.post({ query: `{ ${search('x')} }` }, { 'content-type': 'application/xml' })).status).toBe(415);

    const after = await scrape(metricsUrl);
    expect(moved(before, after, 'csg_http_requests_failed_total')).toEqual({ 'csg_http_requests_failed_total{outcome="graphql"}': 1 });
    expect(moved(before, after, 'csg_http_requests_total')).toEqual({
      'csg_http_requests_total{outcome="graphql"}': 3,
      'csg_http_requests_total{outcome="refused"}': 1,
    });
    expect(moved(before, after, 'csg_graphql_errors_total')).toEqual({
      'csg_graphql_errors_total{code="UPSTREAM_UNAVAILABLE"}': 2,
      'csg_graphql_errors_total{code="UPSTREAM_REJECTED_QUERY"}': 1,
      'csg_graphql_errors_total{code="GRAPHQL_VALIDATION_FAILED"}': 1,
    });
  });

  it('counts a refusal with a 5xx code: a connection over MAX_CONNECTIONS', async () => {
    stack = await startStack({ gateway: { metricsPort: 0, maxConnections: 1 } });
    const metricsUrl = stack.gateway.metricsUrl!;
    let held: RawConnection | undefined;
    try {
      // The one connection served is this silent one; the request comes on another.
      held = await openConnection(stack.gateway.url);
      await eventually(async () => expect((await scrape(metricsUrl)).series.get('csg_http_connections')).toBe(1), 10);
      const before = await scrape(metricsUrl);
      expect((await send(`${stack.gateway.url}/health`, { headers: { connection: 'close' } })).status).toBe(503);
      const after = await scrape(metricsUrl);
      expect({ ...moved(before, after, 'csg_http_requests'), ...moved(before, after, 'csg_http_refusals') }).toEqual({
        'csg_http_requests_total{outcome="refused"}': 1,
        'csg_http_refusals_total{code="TOO_MANY_CONNECTIONS"}': 1,
        'csg_http_requests_failed_total{outcome="refused"}': 1,
      });
    } finally {
      held?.destroy();
    }
  });
});
