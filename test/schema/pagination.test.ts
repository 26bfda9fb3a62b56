import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SearchCompaniesDocument, type SearchCompaniesQuery } from '../generated/graphql.js';
import { encodeCursor, searchFingerprint } from '../../src/schema/cursor.js';
import { searchQueryKey } from '../../src/upstream/search-query.js';
import { holdingUpstream } from '../support/holding-upstream.js';
import { startStack, type GraphQLResponse, type Stack } from '../support/stack.js';
import { eventually } from '../support/within.js';

const COMMON_WORD = 'holdings';

describe('paging over an upstream without paging', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.lookup.counters.reset());

  it('serves every page of the window from one upstream call of the largest page size', async () => {
    const names: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { body }: GraphQLResponse<SearchCompaniesQuery> = await stack.execute(SearchCompaniesDocument, {
        q: COMMON_WORD,
        jurisdiction: 'GB',
        pageSize: 15,
        after,
      });
      const connection: SearchCompaniesQuery['searchCompanies'] = body.data!.searchCompanies;
      pages += 1;
      names.push(...connection.edges.map((edge) => edge.node.companyNumber));
      expect(connection.reachableCount).toBe(50);
      expect(connection.totalCount).toBeGreaterThan(50);
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(pages).toBe(4);
    expect(names).toHaveLength(50);
    expect(new Set(names).size).toBe(50);
    expect(stack.lookup.counters.searchRequests).toBe(1);
    expect(stack.lookup.counters.searchQueries).toHaveLength(1);
    expect(new URLSearchParams(stack.lookup.counters.searchQueries[0]).get('pageSize')).toBe('50');
  });

  it('gives the same results page by page as in one page of 50', async () => {
    const whole = await stack.execute(SearchCompaniesDocument, { q: COMMON_WORD, jurisdiction: 'GB', pageSize: 50 });
    const firstHalf = await stack.execute(SearchCompaniesDocument, { q: COMMON_WORD, jurisdiction: 'GB', first: 25 });
    const secondHalf = await stack.execute(SearchCompaniesDocument, {
      q: COMMON_WORD,
      jurisdiction: 'GB',
      first: 25,
      after: firstHalf.body.data!.searchCompanies.pageInfo.endCursor,
    });
    const ids = (response: typeof whole) => response.body.data!.searchCompanies.edges.map((edge) => edge.node.id);
    expect([...ids(firstHalf), ...ids(secondHalf)]).toEqual(ids(whole));
    expect(whole.body.data!.searchCompanies.edges.map((edge) => edge.cursor)).toEqual([
      ...firstHalf.body.data!.searchCompanies.edges.map((edge) => edge.cursor),
      ...secondHalf.body.data!.searchCompanies.edges.map((edge) => edge.cursor),
    ]);
    expect(secondHalf.body.data!.searchCompanies.pageInfo.hasNextPage).toBe(false);
  });

  it('uses pageSize 20 when neither pageSize nor first is given, and accepts both when equal', async () => {
    const byDefault = await stack.execute(SearchCompaniesDocument, { q: COMMON_WORD, jurisdiction: 'GB' });
    expect(byDefault.body.data!.searchCompanies.edges).toHaveLength(20);
    const both = await stack.execute(SearchCompaniesDocument, { q: COMMON_WORD, jurisdiction: 'GB', pageSize: 7, first: 7 });
    expect(both.body.data!.searchCompanies.edges).toHaveLength(7);
    const firstOnly = await stack.execute(SearchCompaniesDocument, { q: COMMON_WORD, jurisdiction: 'GB', first: 3 });
    expect(firstOnly.body.data!.searchCompanies.edges).toHaveLength(3);
  });
});

async function collectPages(stack: Stack, q: string, pageSize: number, pages: number) {
  const ids: string[] = [];
  const cursors: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < pages; page++) {
    const { body }: GraphQLResponse<SearchCompaniesQuery> = await stack.execute(SearchCompaniesDocument, {
      q,
      jurisdiction: 'GB',
      pageSize,
      after,
    });
    const connection: SearchCompaniesQuery['searchCompanies'] = body.data!.searchCompanies;
    ids.push(...connection.edges.map((edge) => edge.node.id));
    cursors.push(...connection.edges.map((edge) => edge.cursor));
    after = connection.pageInfo.endCursor;
  }
  return { ids, cursors };
}

describe('paging over an upstream that pages (UPSTREAM_PAGE_PARAM)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { upstreamPageParam: 'page' } });
  });
  afterAll(() => stack.close());
  beforeEach(() => {
    stack.lookup.counters.reset();
    stack.lookup.knobs.clearFaults();
  });

  it('keeps every result in place when the upstream sends an unreadable one', async () => {
    const clean = await collectPages(stack, COMMON_WORD, 20, 5);
    stack.lookup.knobs.mapResults = (results) => results.map((result, index) => (index === 0 ? { ...result, name: null } : result));
    // The same search under another cache key: the upstream ignores case, the cache does not.
    const dropping = await collectPages(stack, COMMON_WORD.toUpperCase(), 20, 5);
    const unreadable = new Set([clean.ids[0], clean.ids[50]]);
    expect(dropping.ids).toEqual(clean.ids.filter((id) => !unreadable.has(id)));
    expect(new Set(dropping.ids).size).toBe(98);
  });

  it('asks nothing past a short window', async () => {
    const { body } = await stack.execute(SearchCompaniesDocument, { q: 'ferncastle', jurisdiction: 'GB', pageSize: 6 });
    const second = await stack.execute(SearchCompaniesDocument, {
      q: 'ferncastle',
      jurisdiction: 'GB',
      pageSize: 6,
      after: body.data!.searchCompanies.pageInfo.endCursor,
    });
    expect(second.body.data!.searchCompanies).toMatchObject({ totalCount: 10, reachableCount: 10, pageInfo: { hasNextPage: false } });
    expect(second.body.data!.searchCompanies.edges).toHaveLength(4);
    expect(stack.lookup.counters.searchQueries).toEqual(['q=ferncastle&jurisdiction=GB&pageSize=50&page=1']);
  });

  it('answers an empty page, without asking upstream, for a cursor past the end', async () => {
    await stack.execute(SearchCompaniesDocument, { q: COMMON_WORD, jurisdiction: 'GB', pageSize: 1 });
    stack.lookup.counters.reset();
    const farAway = encodeCursor(searchFingerprint(searchQueryKey({ q: COMMON_WORD, jurisdiction: 'GB' })), 999_999_999);
    const { body } = await stack.execute(SearchCompaniesDocument, { q: COMMON_WORD, jurisdiction: 'GB', after: farAway });
    const connection = body.data!.searchCompanies;
    expect(connection.edges).toEqual([]);
    expect(connection.pageInfo.hasNextPage).toBe(false);
    expect(connection.reachableCount).toBe(connection.totalCount);
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it('fetches the windows a page spans at the same time, once the first has said how far the results reach', async () => {
    const q = COMMON_WORD;
    // Searches for q are held from the second window on, until both have reached the upstream: neither is answered
    // before the other is asked for.
    const upstream = await holdingUpstream(q, { holding: false });
    const own = await startStack({ upstreamUrl: upstream.url, gateway: { upstreamPageParam: 'page' } });
    try {
      upstream.forwardTo(own.lookup.url);
      const head = await own.execute(SearchCompaniesDocument, { q, jurisdiction: 'GB', pageSize: 1 });
      expect(head.body.data!.searchCompanies.totalCount).toBeGreaterThan(110);
      own.lookup.counters.reset();
      upstream.hold();
      // Positions 61 to 110: the second window (50–99) and the third (100–149).
      const after = encodeCursor(searchFingerprint(searchQueryKey({ q, jurisdiction: 'GB' })), 60);
      const answer = own.execute(SearchCompaniesDocument, { q, jurisdiction: 'GB', pageSize: 50, after });
      await eventually(() => expect(upstream.arrivals).toBe(2));
      upstream.release();
      const { body } = await answer;
      expect(body.errors).toBeUndefined();
      expect(body.data!.searchCompanies.edges).toHaveLength(50);
      expect(own.lookup.counters.searchQueries.map((query) => new URLSearchParams(query).get('page')).sort()).toEqual(['2', '3']);
    } finally {
      await own.close();
      await upstream.close();
    }
  });

  it('fetches the later windows with the page parameter and pages past 50', async () => {
    // Capitalised: a cache key no other test here has filled.
    const first = await stack.execute(SearchCompaniesDocument, { q: 'Holdings', jurisdiction: 'GB', pageSize: 40 });
    const connection = first.body.data!.searchCompanies;
    expect(connection.reachableCount).toBe(connection.totalCount);
    expect(connection.pageInfo.hasNextPage).toBe(true);

    const second = await stack.execute(SearchCompaniesDocument, {
      q: 'Holdings',
      jurisdiction: 'GB',
      pageSize: 40,
      after: connection.pageInfo.endCursor,
    });
    expect(second.body.errors).toBeUndefined();
    expect(second.body.data!.searchCompanies.edges).toHaveLength(40);

    const pagesAsked = stack.lookup.counters.searchQueries.map((query) => new URLSearchParams(query).get('page'));
    expect(pagesAsked).toEqual(['1', '2']);

    const whole = new Set([...connection.edges, ...second.body.data!.searchCompanies.edges].map((edge) => edge.node.id));
    expect(whole.size).toBe(80);
  });
});
