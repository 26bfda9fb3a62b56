import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { DOCUMENT_CACHE_SHARE } from '../../src/gateway/graphql/document-cache.js';
import { allFixtureCompanies, defaultDataSet, fixtureCompanies, searchIndexFor } from '../../src/lookup-service/index.js';
import { UPSTREAM_MAX_PAGE_SIZE } from '../../src/upstream/search-call.js';
import { normalizeSearchQuery } from '../../src/upstream/search-query.js';
import { readSearchResponse } from '../../src/upstream/search-response.js';
import { entryBytes } from '../../src/upstream/cache-entry.js';
import { windowBytes as keptBytes } from '../../src/upstream/window-bytes.js';
import { NO_REPEATS, windowKey } from '../../src/upstream/window-size.js';
import { CompanyByNumberDocument, DashboardSearchDocument, SearchCompaniesDocument } from '../generated/graphql.js';
import { expectedCompany } from '../support/expected.js';
import { manualClock } from '../support/clock.js';
import { holdingUpstream } from '../support/holding-upstream.js';
import { startStack, type Stack } from '../support/stack.js';
import { upstreamSearches } from '../support/upstream-calls.js';
import { eventually } from '../support/within.js';

const TTL_MS = 300;
const SWR_MS = 600;

/** Searches of one company each, by its number: the size bound keeps all their windows together. */
const SMALL = allFixtureCompanies.map((company) => [company.companyNumber, company.jurisdiction] as const);
/** Searches of full windows in GB: the size bound keeps any one of them, and never two. */
const LARGE = ['holdings', 'trading', 'services', 'consulting', 'group'];

/** Bytes the window cache counts for the first window of a search, read from the default data set as the gateway reads it. */
function windowBytes(q: string, jurisdiction: string): number {
  const query = normalizeSearchQuery(q, jurisdiction);
  const { results, total } = searchIndexFor(defaultDataSet()).search({ ...query, page: 1, pageSize: UPSTREAM_MAX_PAGE_SIZE });
  const body = JSON.stringify({ results, total });
  const { slots } = readSearchResponse(body, query.jurisdiction, 'test', UPSTREAM_MAX_PAGE_SIZE);
  const window = { slots, repeated: NO_REPEATS, total, fetchedAt: 0, fetchedAtWall: 0, body };
  return entryBytes(keptBytes(windowKey(query, 0), window, UPSTREAM_MAX_PAGE_SIZE));
}

/**
 * The window cache's bound for the size test, computed from the windows it
 * holds rather than written down, so that a field added to companies changes
 * it along with them: halfway between what must fit (every small window
 * together, or any one large one) and what must not (the two smallest large
 * windows together).
 */
function windowCacheBound(): number {
  const small = SMALL.reduce((sum, [q, jurisdiction]) => sum + windowBytes(q, jurisdiction), 0);
  const large = LARGE.map((q) => windowBytes(q, 'GB')).sort((a, b) => a - b);
  const mustFit = Math.max(small, large.at(-1)!);
  const mustNotFit = large[0]! + large[1]!;
  if (mustFit >= mustNotFit) throw new Error(`No bound keeps ${mustFit} bytes and refuses ${mustNotFit}: choose other searches`);
  return Math.floor((mustFit + mustNotFit) / 2);
}

/** Long TTL and a small byte bound: for hits, errors, sharing and eviction. */
let cached: Stack;
/** Short TTL and stale-while-revalidate window: for expiry. */
let expiring: Stack;
/** The expiring stack's clock: its windows age only when a test moves it on. */
const clock = manualClock();

beforeAll(async () => {
  // The window cache alone (no serialized answers), with what CACHE_MAX_BYTES leaves it besides parsed documents.
  const cacheMaxBytes = Math.ceil(windowCacheBound() / (1 - DOCUMENT_CACHE_SHARE));
  [cached, expiring] = await Promise.all([
    startStack({ gateway: { cacheMaxBytes, upstreamRetries: 0, responseCache: false } }),
    startStack({ clock, gateway: { cacheTtlMs: TTL_MS, cacheStaleWhileRevalidateMs: SWR_MS } }),
  ]);
});
afterAll(async () => {
  await Promise.all([cached?.close(), expiring?.close()]);
});
beforeEach(() => {
  for (const stack of [cached, expiring]) {
    stack.lookup.knobs.clearFaults();
    stack.lookup.knobs.searchLatencyMs = 0;
    stack.lookup.counters.reset();
  }
});

describe('search cache: hits', () => {
  it('answers identical queries, after normalization, from one upstream call', async () => {
    const first = await cached.execute(SearchCompaniesDocument, { q: 'Zebra Quantum', jurisdiction: 'GB' });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data!.searchCompanies).toMatchObject({
      totalCount: 1,
      stale: false,
      edges: [{ node: expectedCompany(fixtureCompanies.uniqueName, 'GB') }],
    });

    for (const [q, jurisdiction] of [
      ['  Zebra Quantum  ', 'GB'],
      ['Zebra    Quantum', 'gb'],
      ['\tZebra \n Quantum\n', ' Gb '],
    ] as const) {
      const again = await cached.execute(SearchCompaniesDocument, { q, jurisdiction });
      // Same window, same fetchedAt: the whole answer is identical.
      expect(again.body).toEqual(first.body);
    }
    expect(cached.lookup.counters.searchRequests).toBe(1);
    expect(upstreamSearches(cached)).toEqual([['GB', 'Zebra Quantum']]);
  });

  it('cuts pages of other sizes from the same cached window', async () => {
    const fifty = await cached.execute(DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' });
    const one = await cached.execute(SearchCompaniesDocument, { q: 'ferncastle', jurisdiction: 'GB', pageSize: 1 });
    expect(fifty.body.data!.searchCompanies.nodes).toHaveLength(10);
    expect(one.body.data!.searchCompanies.edges.map((edge) => edge.node.companyNumber)).toEqual([
      fifty.body.data!.searchCompanies.nodes[0]!.companyNumber,
    ]);
    expect(cached.lookup.counters.searchRequests).toBe(1);
  });

  it('keeps case and jurisdiction apart: they make different upstream searches', async () => {
    await cached.execute(SearchCompaniesDocument, { q: 'Cobblestone Yard', jurisdiction: 'GB' });
    await cached.execute(SearchCompaniesDocument, { q: 'cobblestone yard', jurisdiction: 'GB' });
    await cached.execute(SearchCompaniesDocument, { q: 'Cobblestone Yard', jurisdiction: 'IE' });
    await cached.execute(SearchCompaniesDocument, { q: 'cobblestone  yard ', jurisdiction: 'gb' });
    expect(upstreamSearches(cached)).toEqual([
      ['GB', 'Cobblestone Yard'],
      ['GB', 'cobblestone yard'],
      ['IE', 'Cobblestone Yard'],
    ]);
  });
});

describe('search cache: errors', () => {
  it('never caches a failed search: the same query then succeeds with a new upstream call', async () => {
    cached.lookup.knobs.failSearch({ status: 503 }, 1);
    const failed = await cached.execute(SearchCompaniesDocument, { q: 'Thistle Glen', jurisdiction: 'GB' });
    expect(failed.status).toBe(200);
    expect(failed.body.data).toBeNull();
    expect(failed.body.errors).toEqual([
      expect.objectContaining({ path: ['searchCompanies'], extensions: { requestId: expect.any(String), code: 'UPSTREAM_UNAVAILABLE' } }),
    ]);
    expect(cached.lookup.counters.searchRequests).toBe(1);

    const retried = await cached.execute(SearchCompaniesDocument, { q: 'Thistle Glen', jurisdiction: 'GB' });
    expect(retried.body.errors).toBeUndefined();
    expect(retried.body.data!.searchCompanies.edges.map((edge) => edge.node)).toEqual([expectedCompany(fixtureCompanies.scottish, 'GB')]);
    expect(cached.lookup.counters.searchRequests).toBe(2);

    // The success, unlike the failure, is cached.
    const third = await cached.execute(SearchCompaniesDocument, { q: 'Thistle Glen', jurisdiction: 'GB' });
    expect(third.body).toEqual(retried.body);
    expect(cached.lookup.counters.searchRequests).toBe(2);
  });
});

describe('search cache: company lookups', () => {
  it('serves a search for a number from the window that company(...) fetched', async () => {
    const company = fixtureCompanies.withPreviousNames;
    const byNumber = await cached.execute(CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: company.companyNumber });
    expect(byNumber.body).toEqual({ data: { company: expectedCompany(company, 'GB') } });
    expect(cached.lookup.counters.searchRequests).toBe(1);

    const search = await cached.execute(SearchCompaniesDocument, { q: ` ${company.companyNumber} `, jurisdiction: 'gb' });
    expect(search.body.errors).toBeUndefined();
    expect(search.body.data!.searchCompanies.edges.map((edge) => edge.node)).toEqual([expectedCompany(company, 'GB')]);
    expect(upstreamSearches(cached)).toEqual([['GB', company.companyNumber]]);
  });

  it('serves company(...) from the window a search for the number fetched', async () => {
    const company = fixtureCompanies.partialAddress;
    const search = await cached.execute(SearchCompaniesDocument, { q: company.companyNumber, jurisdiction: 'GB' });
    expect(search.body.data!.searchCompanies.edges.map((edge) => edge.node)).toEqual([expectedCompany(company, 'GB')]);

    const byNumber = await cached.execute(CompanyByNumberDocument, { jurisdiction: 'gb', companyNumber: company.companyNumber });
    expect(byNumber.body).toEqual({ data: { company: expectedCompany(company, 'GB') } });
    expect(upstreamSearches(cached)).toEqual([['GB', company.companyNumber]]);
  });
});

describe('search cache: size bound', () => {
  it('is bounded in bytes: small windows all stay, large ones evict the least recently used', async () => {
    const search = (q: string, jurisdiction: string) => cached.execute(DashboardSearchDocument, { q, jurisdiction });

    // The windows of one company each fit together.
    for (const [q, jurisdiction] of SMALL) await search(q, jurisdiction);
    cached.lookup.counters.reset();
    for (const [q, jurisdiction] of SMALL) {
      const { body } = await search(q, jurisdiction);
      expect(body.data!.searchCompanies.nodes.map((node) => node.companyNumber)).toEqual([q]);
    }
    expect(cached.lookup.counters.searchRequests).toBe(0);

    // Full windows of 50 companies: only one fits at a time.
    for (const q of LARGE) {
      const { body } = await search(q, 'GB');
      expect(body.data!.searchCompanies.nodes).toHaveLength(50);
    }
    expect(cached.lookup.counters.searchRequests).toBe(LARGE.length);

    cached.lookup.counters.reset();
    await search('group', 'GB');
    expect(cached.lookup.counters.searchRequests).toBe(0);
    await search('holdings', 'GB');
    expect(cached.lookup.counters.searchRequests).toBe(1);
    const [firstSmallQ, firstSmallJurisdiction] = SMALL[0]!;
    await search(firstSmallQ, firstSmallJurisdiction);
    expect(upstreamSearches(cached)).toEqual([
      ['GB', 'holdings'],
      [firstSmallJurisdiction, firstSmallQ],
    ]);
  });
});

describe('search cache: expiry', () => {
  it('within stale-while-revalidate serves the stale window at once and refreshes it exactly once in the background', async () => {
    const variables = { q: 'Marlowe Kestrel', jurisdiction: 'GB' };
    // A stack of its own: the gateway calls the lookup service through a proxy that holds the search once the fresh
    // window is cached, so the refresh stays in flight until the test lets it go.
    const holding = await holdingUpstream(variables.q, { holding: false });
    const ownClock = manualClock();
    let started: Stack | undefined;
    onTestFinished(async () => {
      // A search still held would hold the gateway's close: it goes on first, and the proxy closes once it has passed.
      holding.release();
      await started?.close();
      await holding.close();
    });
    const stack = await startStack({
      clock: ownClock,
      upstreamUrl: holding.url,
      gateway: { cacheTtlMs: TTL_MS, cacheStaleWhileRevalidateMs: SWR_MS },
    });
    started = stack;
    holding.forwardTo(stack.lookup.url);

    const first = await stack.execute(SearchCompaniesDocument, variables);
    expect(first.body.errors).toBeUndefined();
    const firstPage = first.body.data!.searchCompanies;
    expect(firstPage.stale).toBe(false);
    expect(firstPage.edges.map((edge) => edge.node)).toEqual([expectedCompany(fixtureCompanies.withPreviousNames, 'GB')]);

    // Within the TTL: a cache hit.
    const hit = await stack.execute(SearchCompaniesDocument, variables);
    expect(hit.body).toEqual(first.body);
    expect(stack.lookup.counters.searchRequests).toBe(1);

    // Past the TTL, inside the stale-while-revalidate window. The refresh is held at the proxy until all three requests
    // are answered: had any of them waited for the refresh, they would never be answered (and the test would time out).
    ownClock.advance(TTL_MS + 50);
    holding.hold();
    const staleAnswers = await Promise.all([1, 2, 3].map(() => stack.execute(SearchCompaniesDocument, variables)));
    for (const answer of staleAnswers) {
      expect(answer.body).toEqual({
        data: { searchCompanies: { ...firstPage, stale: true, fetchedAt: firstPage.fetchedAt } },
      });
    }
    // The refresh went out in the background, and is still held: it has not reached the lookup service.
    await holding.reached;
    expect(stack.lookup.counters.searchRequests).toBe(1);
    holding.release();

    await eventually(() => expect(stack.lookup.counters.searchRequests).toBe(2));
    // The refresh has been answered; asking the gateway before then would spend the client's rate limit on stale answers.
    await eventually(() => expect(stack.lookup.counters.searchesInFlight).toBe(0));

    const refreshed = await eventually(async () => {
      const answer = await stack.execute(SearchCompaniesDocument, variables);
      expect(answer.body.data!.searchCompanies.stale).toBe(false);
      return answer.body.data!.searchCompanies;
    }, 10);
    expect(Date.parse(refreshed.fetchedAt)).toBeGreaterThan(Date.parse(firstPage.fetchedAt));
    expect(refreshed).toEqual({ ...firstPage, fetchedAt: refreshed.fetchedAt });
    // Exactly one refresh, however many requests saw the stale window.
    expect(stack.lookup.counters.searchRequests).toBe(2);
    expect(upstreamSearches(stack)).toEqual([
      ['GB', 'Marlowe Kestrel'],
      ['GB', 'Marlowe Kestrel'],
    ]);
  });

  it('past TTL + stale-while-revalidate waits for a fresh answer', async () => {
    const variables = { q: 'Lagan Linen', jurisdiction: 'GB' };
    const first = await expiring.execute(SearchCompaniesDocument, variables);
    const firstPage = first.body.data!.searchCompanies;
    expect(firstPage.edges.map((edge) => edge.node)).toEqual([expectedCompany(fixtureCompanies.northernIrish, 'GB')]);

    clock.advance(TTL_MS + SWR_MS + 50);
    const sentAt = clock();
    const fresh = await expiring.execute(SearchCompaniesDocument, variables);

    // It waited for the upstream instead of answering from the expired window: the page is the one fetched by this
    // request's call (the clock stands still, so an older window would have an earlier fetchedAt), not labelled stale.
    const freshPage = fresh.body.data!.searchCompanies;
    expect(freshPage.stale).toBe(false);
    expect(Date.parse(freshPage.fetchedAt)).toBeGreaterThanOrEqual(sentAt);
    expect(freshPage).toEqual({ ...firstPage, fetchedAt: freshPage.fetchedAt });
    expect(expiring.lookup.counters.searchRequests).toBe(2);

    // And the fresh window is cached again.
    const hit = await expiring.execute(SearchCompaniesDocument, variables);
    expect(hit.body).toEqual(fresh.body);
    expect(expiring.lookup.counters.searchRequests).toBe(2);
  });
});
