import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CompanyResult } from '../../src/lookup-service/index.js';
import { decodeCursor, searchFingerprint } from '../../src/schema/cursor.js';
import { normalizeSearchQuery, searchQueryKey } from '../../src/upstream/search-query.js';
import { SearchCompaniesDocument, type SearchCompaniesQuery } from '../generated/graphql.js';
import { startStack, type GraphQLResponse, type Stack } from '../support/stack.js';

type Connection = SearchCompaniesQuery['searchCompanies'];

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateway: { upstreamPageParam: 'page', rateLimitPerMinute: 0 } });
});
afterAll(() => stack.close());
beforeEach(() => {
  stack.lookup.knobs.clearFaults();
  stack.logs.length = 0;
});

/** Every page of a search, `first` at a time, until hasNextPage is false. */
async function allPages(q: string, first: number) {
  const pages: { connection: Connection; errors: unknown }[] = [];
  let after: string | null = null;
  for (;;) {
    const { body }: GraphQLResponse<SearchCompaniesQuery> = await stack.execute(SearchCompaniesDocument, {
      q,
      jurisdiction: 'GB',
      first,
      after,
    });
    const connection: Connection = body.data!.searchCompanies;
    pages.push({ connection, errors: body.errors });
    if (!connection.pageInfo.hasNextPage) break;
    after = connection.pageInfo.endCursor;
    expect(pages.length).toBeLessThan(200);
  }
  return pages;
}

const ids = (pages: { connection: Connection }[]) => pages.flatMap(({ connection }) => connection.edges.map((edge) => edge.node.id));
const cursors = (pages: { connection: Connection }[]) => pages.flatMap(({ connection }) => connection.edges.map((edge) => edge.cursor));

/** Slots 2 and 7 of every page the upstream sends repeat the company in slot 0 (or, if the page is shorter, are left alone). */
function repeatFirstAt(results: CompanyResult[]): CompanyResult[] {
  return results.map((result, slot) => ((slot === 2 || slot === 7) && results[0] ? { ...results[0] } : result));
}

describe('a company the upstream repeats within a window', () => {
  it('is kept once, where it first came, without a partial error, and the repeat is logged with a count', async () => {
    const clean = await allPages('ferncastle', 50);
    stack.lookup.knobs.mapResults = repeatFirstAt;
    // Another capitalisation: a cache key of its own, the same results upstream.
    const repeated = await allPages('Ferncastle', 50);

    const cleanIds = ids(clean);
    expect(ids(repeated)).toEqual(cleanIds.filter((_, position) => position !== 2 && position !== 7));
    expect(new Set(ids(repeated)).size).toBe(ids(repeated).length);
    expect(repeated[0]!.errors).toBeUndefined();
    expect(stack.logs.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({
        level: 40,
        repeated: 2,
        slots: [2, 7],
        msg: 'Upstream sent the same company more than once in one window; kept the first',
      }),
    );
  });

  it('keeps cursors, reachableCount and hasNextPage consistent when paging across it, through several upstream windows', async () => {
    stack.lookup.knobs.mapResults = repeatFirstAt;
    const pages = await allPages('hOLDINGS', 23);
    const { totalCount, reachableCount } = pages[0]!.connection;
    expect(reachableCount).toBeGreaterThan(100);
    // Every page tells the same counts; the last says there is nothing after it.
    for (const { connection, errors } of pages) {
      expect({ totalCount: connection.totalCount, reachableCount: connection.reachableCount, errors }).toEqual({
        totalCount,
        reachableCount,
        errors: undefined,
      });
    }
    // Positions run on in the upstream's order: cursors only ever move forward, never repeat, and none is lost.
    const fingerprint = searchFingerprint(searchQueryKey(normalizeSearchQuery('hOLDINGS', 'GB')));
    const positions = cursors(pages).map((cursor) => decodeCursor(cursor, fingerprint, 'after'));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(positions.length);
    const windows = Math.ceil(reachableCount / 50);
    // Each upstream window left out its two repeats (the last one too if it reaches slot 7).
    const lastWindowLength = reachableCount - (windows - 1) * 50;
    const left = (windows - 1) * 2 + (lastWindowLength > 7 ? 2 : lastWindowLength > 2 ? 1 : 0);
    expect(ids(pages)).toHaveLength(reachableCount - left);
    expect(new Set(ids(pages)).size).toBe(reachableCount - left);
  });
});
