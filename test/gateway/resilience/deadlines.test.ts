import { print } from 'graphql';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeCursor, searchFingerprint } from '../../../src/schema/cursor.js';
import { normalizeSearchQuery, searchQueryKey } from '../../../src/upstream/search-query.js';
import { DashboardSearchDocument, SearchCompaniesDocument } from '../../generated/graphql.js';
import { startStack, type Stack, type StackOptions } from '../../support/stack.js';

let stack: Stack | undefined;
afterEach(() => stack?.close());

async function start(options: StackOptions) {
  stack = await startStack(options);
  // The token is fetched before the upstream turns slow, so only searches are slow below.
  await stack.execute(DashboardSearchDocument, { q: 'warm up', jurisdiction: 'GB' });
  stack.lookup.counters.reset();
  return stack;
}

/** Sends a query and hangs up after `leaveAfterMs`, as a browser tab that closes does. */
async function leaveEarly(stack: Stack, body: unknown, leaveAfterMs: number) {
  // A client of its own, closed with the request, as a closing tab's connection is.
  const client = new Agent();
  await request(stack.gateway.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(leaveAfterMs),
    dispatcher: client,
  }).then(
    () => expect.fail('the request should have been abandoned'),
    (error: Error) => expect(error.name).toBe('TimeoutError'),
  );
  await client.destroy();
}

describe('request deadline', () => {
  it('answers UPSTREAM_TIMEOUT at the deadline when the upstream is slower, and normally once it is not', async () => {
    const stack = await start({ gateway: { requestDeadlineMs: 300, upstreamHeadersTimeoutMs: 10_000 } });
    stack.lookup.knobs.searchLatencyMs = 3_000;
    const startedAt = performance.now();
    const { body } = await stack.execute(DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' });
    const elapsedMs = performance.now() - startedAt;
    // A real timeout, set small: it cannot fire early, and the bound above it leaves over a second of slack for a
    // busy machine while staying far below the 3 s the upstream would have taken.
    expect(elapsedMs).toBeGreaterThanOrEqual(290);
    expect(elapsedMs).toBeLessThan(1_500);
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: 'The company lookup service did not answer in time; try again shortly.',
        extensions: { requestId: expect.any(String), code: 'UPSTREAM_TIMEOUT' },
      }),
    ]);
    expect(stack.lookup.counters.searchRequests).toBe(1);

    stack.lookup.knobs.searchLatencyMs = 0;
    const recovered = await stack.execute(DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' });
    expect(recovered.body.errors).toBeUndefined();
  });
});

describe('a client that leaves', () => {
  it('does not cancel the upstream call it started: the answer is cached for the next client', async () => {
    const stack = await start({ lookup: { searchLatencyMs: 0 } });
    stack.lookup.knobs.searchLatencyMs = 300;
    const query = { query: print(DashboardSearchDocument), variables: { q: 'ferncastle', jurisdiction: 'GB' } };
    await leaveEarly(stack, query, 100);
    // The call runs on without its client: the lookup service answers it, and the gateway caches the window.
    await vi.waitFor(() => expect(stack.lookup.counters.searchesAnswered).toBe(1), { timeout: 5_000, interval: 10 });
    await vi.waitFor(() => expect(stack.lookup.counters.searchesInFlight).toBe(0), { timeout: 5_000, interval: 10 });

    const next = await stack.execute(DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' });
    expect(next.body.errors).toBeUndefined();
    expect(next.body.data!.searchCompanies.nodes).toHaveLength(10);
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });

  it('does not cancel a call other clients are waiting for', async () => {
    const stack = await start({});
    stack.lookup.knobs.searchLatencyMs = 300;
    const query = { query: print(DashboardSearchDocument), variables: { q: 'ferncastle', jurisdiction: 'GB' } };
    const [, stayed] = await Promise.all([
      leaveEarly(stack, query, 100),
      stack.execute(DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' }),
    ]);
    expect(stayed.body.errors).toBeUndefined();
    expect(stayed.body.data!.searchCompanies.nodes).toHaveLength(10);
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });

  it('stops its own work: the next window of its page is never asked for', async () => {
    const stack = await start({ gateway: { upstreamPageParam: 'page' } });
    stack.lookup.knobs.searchLatencyMs = 400;
    // Positions 45 to 64 span the first window and the second; the first is read first.
    const after = encodeCursor(searchFingerprint(searchQueryKey(normalizeSearchQuery('holdings', 'GB'))), 44);
    const variables = { q: 'holdings', jurisdiction: 'GB', pageSize: 20, after };
    await leaveEarly(stack, { query: print(SearchCompaniesDocument), variables }, 100);
    // The first window is asked for (its document is parsed and cached by then); the next bytes the caches take
    // are that window's, once its answer is in. A page still being cut would then ask for the second window at once.
    await vi.waitFor(() => expect(stack.lookup.counters.searchRequests).toBe(1), { timeout: 5_000, interval: 10 });
    const cachedBefore = stack.gateway.cacheBytes;
    await vi.waitFor(() => expect(stack.gateway.cacheBytes).toBeGreaterThan(cachedBefore), { timeout: 5_000, interval: 10 });
    expect(stack.lookup.counters.searchQueries).toEqual(['q=holdings&jurisdiction=GB&pageSize=50&page=1']);

    stack.lookup.knobs.searchLatencyMs = 0;
    const { body } = await stack.execute(SearchCompaniesDocument, variables);
    expect(body.data!.searchCompanies.edges).toHaveLength(20);
    expect(stack.lookup.counters.searchQueries).toEqual([
      'q=holdings&jurisdiction=GB&pageSize=50&page=1',
      'q=holdings&jurisdiction=GB&pageSize=50&page=2',
    ]);
  });
});
