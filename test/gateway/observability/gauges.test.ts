import { afterEach, describe, expect, it } from 'vitest';
import { moved, scrape } from '../../support/metrics.js';
import { openConnection, type RawConnection } from '../../support/raw-connection.js';
import { startStack, type Stack } from '../../support/stack.js';
import { eventually } from '../../support/within.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('the gauges', () => {
  it('show no Redis sharing without REDIS_URL and no token expiry before the first token, rather than a 0 that reads as a state', async () => {
    stack = await startStack({ gateway: { metricsPort: 0 } });
    const before = await scrape(stack.gateway.metricsUrl!);
    expect(before.text).toContain('# TYPE csg_redis_sharing gauge');
    expect([...before.series.keys()].filter((name) => /^csg_(redis_sharing|upstream_token_expiry_seconds)\b/.test(name))).toEqual([]);

    expect((await stack.post({ query: '{ searchCompanies(q: "first token", jurisdiction: "GB") { totalCount } }' })).status).toBe(200);
    const after = await scrape(stack.gateway.metricsUrl!);
    expect(after.series.get('csg_upstream_token_expiry_seconds')).toBeGreaterThan(0);
    expect(after.series.has('csg_redis_sharing')).toBe(false);
  });

  it('show the bounds the settings set: CACHE_MAX_BYTES, UPSTREAM_MAX_CALLS_PER_MINUTE (absent when unset) and MAX_CONNECTIONS', async () => {
    stack = await startStack({
      gateway: { metricsPort: 0, cacheMaxBytes: 20 * 1024 * 1024, upstreamMaxCallsPerMinute: 120, maxConnections: 64 },
    });
    const { series } = await scrape(stack.gateway.metricsUrl!);
    expect({
      cache: series.get('csg_cache_max_bytes'),
      budget: series.get('csg_upstream_max_calls_per_minute'),
      connections: series.get('csg_http_max_connections'),
    }).toEqual({ cache: 20 * 1024 * 1024, budget: 120, connections: 64 });
    await stack.close();

    stack = await startStack({ gateway: { metricsPort: 0 } });
    expect((await scrape(stack.gateway.metricsUrl!)).series.has('csg_upstream_max_calls_per_minute')).toBe(false);
  });

  it('count the connections open on the public port', async () => {
    stack = await startStack({ gateway: { metricsPort: 0 } });
    const metricsUrl = stack.gateway.metricsUrl!;
    const before = await scrape(metricsUrl);
    const connections: RawConnection[] = [];
    try {
      for (let i = 0; i < 3; i++) connections.push(await openConnection(stack.gateway.url));
      await eventually(
        async () => expect(moved(before, await scrape(metricsUrl), 'csg_http_connections')).toEqual({ csg_http_connections: 3 }),
        10,
      );
    } finally {
      for (const connection of connections) connection.destroy();
    }
    await eventually(
      async () => expect((await scrape(metricsUrl)).series.get('csg_http_connections')).toBe(before.series.get('csg_http_connections')),
      10,
    );
  });
});
