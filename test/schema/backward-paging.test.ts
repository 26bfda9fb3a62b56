import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeCursor, searchFingerprint } from '../../src/schema/cursor.js';
import { searchQueryKey } from '../../src/upstream/search-query.js';
import { SearchCompaniesDocument, type SearchCompaniesQuery, type SearchCompaniesQueryVariables } from '../generated/graphql.js';
import { matchCount } from '../support/data-set.js';
import { startStack, type Stack } from '../support/stack.js';

type Connection = SearchCompaniesQuery['searchCompanies'];

/** The variables Relay sends: the arguments of the other direction are null, not left out. */
const forward = (first: number, after: string | null) => ({ first, after, last: null, before: null });
const backward = (last: number, before: string | null) => ({ first: null, after: null, last, before });

const idsOf = (connection: Connection) => connection.edges.map((edge) => edge.node.id);

/** Matches of 'trading' in the data set: more than one window of 50, so paging past the first needs a page parameter. */
const TRADING = matchCount('trading');

describe.each([
  // Without a page parameter the first window's 50 can be paged through, with it every match.
  ['without UPSTREAM_PAGE_PARAM', undefined, 10, 50],
  ['with UPSTREAM_PAGE_PARAM', 'page', 22, TRADING],
])('paging backward with last and before (%s)', (_, upstreamPageParam, pageSize, reachable) => {
  let stack: Stack;
  let searches = 0;
  beforeAll(async () => {
    stack = await startStack({ gateway: { upstreamPageParam } });
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.lookup.knobs.clearFaults());

  /** A search of 'trading' no earlier test has cached: the lookup service ignores case, the cache does not. */
  function freshTrading(): string {
    searches += 1;
    return [...'trading'].map((letter, i) => ((searches >> i) & 1 ? letter.toUpperCase() : letter)).join('');
  }

  async function page(q: string, paging: Partial<SearchCompaniesQueryVariables>): Promise<Connection> {
    const { body } = await stack.execute(SearchCompaniesDocument, { q, jurisdiction: 'GB', ...paging });
    expect(body.errors).toBeUndefined();
    return body.data!.searchCompanies;
  }

  it('pages forward to the end, then back to the start, meeting the same pages in reverse order', async () => {
    const q = freshTrading();
    const forwardPages: Connection[] = [await page(q, forward(pageSize, null))];
    while (forwardPages.at(-1)!.pageInfo.hasNextPage) {
      forwardPages.push(await page(q, forward(pageSize, forwardPages.at(-1)!.pageInfo.endCursor)));
    }
    expect(TRADING).toBeGreaterThan(50);
    expect(forwardPages).toHaveLength(Math.ceil(reachable / pageSize));
    expect(forwardPages.map((connection) => connection.pageInfo.hasPreviousPage)).toEqual(forwardPages.map((__, i) => i > 0));

    const backwardPages: Connection[] = [await page(q, backward(pageSize, forwardPages.at(-1)!.pageInfo.startCursor))];
    while (backwardPages.at(-1)!.pageInfo.hasPreviousPage) {
      backwardPages.push(await page(q, backward(pageSize, backwardPages.at(-1)!.pageInfo.startCursor)));
    }
    expect(backwardPages.map(idsOf)).toEqual(forwardPages.slice(0, -1).map(idsOf).reverse());
    expect(backwardPages.map((connection) => connection.pageInfo.hasNextPage)).toEqual(backwardPages.map(() => true));
    expect(backwardPages.map((connection) => connection.edges.map((edge) => edge.cursor))).toEqual(
      forwardPages
        .slice(0, -1)
        .map((connection) => connection.edges.map((edge) => edge.cursor))
        .reverse(),
    );
    expect(new Set(forwardPages.flatMap(idsOf)).size).toBe(reachable);
  });

  it('starts from the end of what can be paged through when last comes without before', async () => {
    const q = freshTrading();
    const last = await page(q, backward(pageSize, null));
    expect(last.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(last.reachableCount).toBe(reachable);
    const cursorBefore = encodeCursor(searchFingerprint(searchQueryKey({ q, jurisdiction: 'GB' })), reachable - pageSize - 1);
    const after = await page(q, forward(pageSize, cursorBefore));
    expect(idsOf(last)).toEqual(idsOf(after));
    expect(last.pageInfo.startCursor).toBe(after.pageInfo.startCursor);
  });

  it('gives a short page at the start, and an empty one before it', async () => {
    const q = freshTrading();
    const third = encodeCursor(searchFingerprint(searchQueryKey({ q, jurisdiction: 'GB' })), 2);
    const start = await page(q, backward(pageSize, third));
    expect(start.edges).toHaveLength(2);
    expect(start.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    const empty = await page(q, backward(pageSize, start.pageInfo.startCursor));
    expect(empty).toMatchObject({ edges: [], pageInfo: { hasPreviousPage: false, hasNextPage: true, startCursor: null } });
  });

  it('takes the results between after and before, the last ones with last and the first ones with first', async () => {
    const q = freshTrading();
    const whole = await page(q, forward(10, null));
    const [after, before] = [whole.edges[1]!.cursor, whole.edges[8]!.cursor];
    expect(idsOf(await page(q, { last: 3, after, before }))).toEqual(idsOf(whole).slice(5, 8));
    expect(idsOf(await page(q, { first: 3, after, before }))).toEqual(idsOf(whole).slice(2, 5));
    expect(idsOf(await page(q, { first: 50, after, before }))).toEqual(idsOf(whole).slice(2, 8));
  });
});

describe('paging backward when the upstream ends before its total', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { upstreamPageParam: 'page' } });
  });
  afterAll(() => stack.close());

  it('places the last page again once a short window shows where the results end', async () => {
    const q = 'TRADING';
    // Every match by the total, but the last window, short, comes back empty: only whole windows can be paged through.
    expect(TRADING % 50, 'the last window of the matches is short').toBeGreaterThan(0);
    const reachable = TRADING - (TRADING % 50);
    stack.lookup.knobs.mapResults = (results) => (results.length < 50 ? [] : results);
    const { body } = await stack.execute(SearchCompaniesDocument, { q, jurisdiction: 'GB', last: 10 });
    stack.lookup.knobs.clearFaults();
    const connection = body.data!.searchCompanies;
    expect(connection).toMatchObject({
      totalCount: TRADING,
      reachableCount: reachable,
      pageInfo: { hasNextPage: false, hasPreviousPage: true },
    });
    const whole = await stack.execute(SearchCompaniesDocument, {
      q,
      jurisdiction: 'GB',
      first: 10,
      after: encodeCursor(searchFingerprint(searchQueryKey({ q, jurisdiction: 'GB' })), reachable - 11),
    });
    expect(idsOf(connection)).toEqual(idsOf(whole.body.data!.searchCompanies));
    expect(connection.edges).toHaveLength(10);
    // The first window (for the total), then those of the last 10 matches by the total, then those of the last 10
    // that can be reached: each once, nothing asked twice.
    const pageOf = (position: number) => String(Math.floor(position / 50) + 1);
    const expected = [...new Set(['1', ...[TRADING - 10, TRADING - 1, reachable - 10, reachable - 1].map(pageOf)])];
    expect(stack.lookup.counters.searchQueries.map((query) => new URLSearchParams(query).get('page'))).toEqual(expected);
  });
});
