import { afterEach, describe, expect, it } from 'vitest';
import { fixtureCompanies } from '../../src/lookup-service/index.js';
import { CompanyByNumberDocument, DashboardSearchDocument, SearchCompaniesDocument } from '../generated/graphql.js';
import { manualClock, type ManualClock } from '../support/clock.js';
import { type HoldingUpstream, holdingUpstream } from '../support/holding-upstream.js';
import { recordedAlarms } from '../support/recorded-alarms.js';
import { startStack, type Stack, type StackOptions } from '../support/stack.js';

const TTL_MS = 200;
const SEARCH = { q: 'ferncastle', jurisdiction: 'GB' };

let stack: Stack | undefined;
/** The gateway's clock: windows go past their TTL when the test moves it on. */
let clock: ManualClock;
/** A proxy a test put between the gateway and the lookup service. */
let upstream: HoldingUpstream | undefined;
afterEach(async () => {
  // A search still held would hold the gateway's close: it goes on first, and the proxy closes once it has passed.
  upstream?.release();
  await stack?.close();
  await upstream?.close();
  upstream = undefined;
});

async function start(gateway: StackOptions['gateway'] = {}, options: Omit<StackOptions, 'clock' | 'gateway'> = {}) {
  clock = manualClock();
  stack = await startStack({
    ...options,
    clock,
    gateway: {
      cacheTtlMs: TTL_MS,
      cacheStaleWhileRevalidateMs: 0,
      cacheStaleIfErrorMs: 60_000,
      upstreamRetries: 0,
      upstreamBreakerFailures: 1_000,
      ...gateway,
    },
  });
  return stack;
}

/** A search answered fresh, then left to go past its TTL. */
async function expiredSearch(stack: Stack) {
  const fresh = await stack.execute(SearchCompaniesDocument, SEARCH);
  expect(fresh.body.errors).toBeUndefined();
  expect(fresh.body.data!.searchCompanies.stale).toBe(false);
  clock.advance(TTL_MS + 50);
  stack.lookup.counters.reset();
  return fresh.body.data!.searchCompanies;
}

function staleWarning(reason: string, fetchedAt: string, path?: string[]) {
  return {
    code: 'STALE_DATA',
    reason,
    fetchedAt,
    message: expect.stringContaining(`The company lookup service failed (${reason})`),
    ...(path ? { path } : {}),
  };
}

describe('stale-if-error', () => {
  it('serves an expired search when the upstream fails, labelled stale with a warning', async () => {
    const stack = await start();
    const fresh = await expiredSearch(stack);
    stack.lookup.knobs.failSearch({ status: 503 }, Number.POSITIVE_INFINITY);

    const { status, body } = await stack.execute(SearchCompaniesDocument, SEARCH);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data!.searchCompanies).toEqual({ ...fresh, stale: true });
    expect(body.extensions).toEqual({
      warnings: [staleWarning('UPSTREAM_UNAVAILABLE', fresh.fetchedAt, ['searchCompanies'])],
    });
    expect(stack.lookup.counters.searchRequests).toBe(1);

    stack.lookup.knobs.clearFaults();
    const recovered = await stack.execute(SearchCompaniesDocument, SEARCH);
    expect(recovered.body.extensions).toBeUndefined();
    expect(recovered.body.data!.searchCompanies.stale).toBe(false);
    expect(recovered.body.data!.searchCompanies.fetchedAt > fresh.fetchedAt).toBe(true);
  });

  it('serves it without calling the upstream while the circuit is open', async () => {
    const stack = await start({ upstreamBreakerFailures: 1, upstreamBreakerCooldownMs: 60_000 });
    const fresh = await expiredSearch(stack);
    stack.lookup.knobs.failSearch({ status: 500 }, Number.POSITIVE_INFINITY);
    await stack.execute(DashboardSearchDocument, SEARCH);
    expect(stack.lookup.counters.searchRequests).toBe(1);

    const { body } = await stack.execute(SearchCompaniesDocument, SEARCH);
    expect(body.data!.searchCompanies).toEqual({ ...fresh, stale: true });
    expect(body.extensions).toEqual({ warnings: [staleWarning('UPSTREAM_UNAVAILABLE', fresh.fetchedAt, ['searchCompanies'])] });
    expect(stack.lookup.counters.searchRequests).toBe(1);

    const uncached = await stack.execute(DashboardSearchDocument, { q: 'holdings', jurisdiction: 'GB' });
    expect(uncached.body.errors).toEqual([
      expect.objectContaining({ extensions: { requestId: expect.any(String), code: 'UPSTREAM_UNAVAILABLE' } }),
    ]);
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });

  it('serves it when the request deadline rings while the upstream still holds the search', async () => {
    // The gateway calls the lookup service through a proxy that holds the search once the fresh window is cached, so
    // the refresh is still upstream when the test rings the deadline.
    const holding = await holdingUpstream(SEARCH.q, { holding: false });
    upstream = holding;
    const alarms = recordedAlarms();
    // A deadline no stall of the machine reaches: only the alarm the test rings ends the wait.
    const stack = await start({ requestDeadlineMs: 60_000 }, { upstreamUrl: holding.url, deadlineAlarm: alarms.alarm });
    holding.forwardTo(stack.lookup.url);
    const fresh = await expiredSearch(stack);
    alarms.forgetSilenced();
    holding.hold();

    const answering = stack.execute(SearchCompaniesDocument, SEARCH);
    await holding.reached;
    alarms.ringTheOnlyOne(60_000);
    const { body } = await answering;
    expect(body.data!.searchCompanies).toEqual({ ...fresh, stale: true });
    expect(body.extensions).toEqual({ warnings: [staleWarning('UPSTREAM_TIMEOUT', fresh.fetchedAt, ['searchCompanies'])] });
    // Answered at the deadline, without waiting for the upstream: the search has not even reached the lookup service.
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it('serves company(...) the same way, with a warning naming the company', async () => {
    const stack = await start();
    const company = fixtureCompanies.scottish;
    const variables = { jurisdiction: 'GB', companyNumber: company.companyNumber };
    const fresh = await stack.execute(CompanyByNumberDocument, variables);
    expect(fresh.body.data!.company!.name).toBe(company.name);
    clock.advance(TTL_MS + 50);
    stack.lookup.knobs.failSearch({ kind: 'drop-connection' }, Number.POSITIVE_INFINITY);

    const { body } = await stack.execute(CompanyByNumberDocument, variables);
    expect(body.data).toEqual(fresh.body.data);
    expect(body.extensions).toEqual({
      warnings: [
        {
          code: 'STALE_DATA',
          reason: 'UPSTREAM_UNAVAILABLE',
          fetchedAt: expect.any(String),
          message: expect.stringContaining(`so company GB:${company.companyNumber} comes from a copy fetched at`),
        },
      ],
    });
  });

  it('gives up on data older than TTL + the stale-if-error maximum', async () => {
    const stack = await start({ cacheStaleIfErrorMs: 100 });
    await expiredSearch(stack);
    clock.advance(100);
    stack.lookup.knobs.failSearch({ status: 503 }, Number.POSITIVE_INFINITY);
    const { body } = await stack.execute(SearchCompaniesDocument, SEARCH);
    expect(body.data).toBeNull();
    expect(body.errors).toEqual([expect.objectContaining({ extensions: { requestId: expect.any(String), code: 'UPSTREAM_UNAVAILABLE' } })]);
  });

  it('never serves stale data for a query the upstream rejects', async () => {
    const stack = await start();
    await expiredSearch(stack);
    stack.lookup.knobs.failSearch({ status: 400, body: '{"message":"q is not allowed"}' }, 1);
    const { body } = await stack.execute(SearchCompaniesDocument, SEARCH);
    expect(body.errors).toEqual([
      expect.objectContaining({ extensions: { requestId: expect.any(String), code: 'UPSTREAM_REJECTED_QUERY' } }),
    ]);
  });
});
