/**
 * The abort signal of a request, the direct lane's (graphql/direct-answers.ts) and Yoga's, driven by events rather
 * than by latencies and client timeouts: the upstream holds the first window of the page until the test has seen the
 * gateway notice its client left.
 */
import { print } from 'graphql';
import { afterEach, expect, it } from 'vitest';
import { encodeCursor, searchFingerprint } from '../../src/schema/cursor.js';
import { normalizeSearchQuery, searchQueryKey } from '../../src/upstream/search-query.js';
import { DashboardSearchDocument, SearchCompaniesDocument } from '../generated/graphql.js';
import { type HoldingUpstream, holdingUpstream, leaveWhileHeld } from '../support/holding-upstream.js';
import { startStack, type Stack } from '../support/stack.js';
import { eventually } from '../support/within.js';

let stack: Stack | undefined;
let upstream: HoldingUpstream | undefined;
afterEach(async () => {
  // Released first, so that a failing test still closes.
  await upstream?.close();
  await stack?.close();
  stack = upstream = undefined;
});

it.each([
  ['the direct lane', true],
  ['Yoga', false],
])('a client that leaves stops its own work in %s: the next window of its page is never asked for', async (_, lane) => {
  upstream = await holdingUpstream('holdings');
  const writtenBy = { direct: 0, yoga: 0 };
  stack = await startStack({
    upstreamUrl: upstream.url,
    gateway: { upstreamPageParam: 'page', responseCache: false },
    directAnswers: lane && { observe: (by) => (writtenBy[by] += 1) },
  });
  upstream.forwardTo(stack.lookup.url);
  // The token comes first, so that only the search below waits.
  await stack.execute(DashboardSearchDocument, { q: 'warm up', jurisdiction: 'GB' });
  const searchesBefore = stack.lookup.counters.searchQueries.length;

  // Positions 45 to 64 span the first window and the second; the first is read first.
  const after = encodeCursor(searchFingerprint(searchQueryKey(normalizeSearchQuery('holdings', 'GB'))), 44);
  const variables = { q: 'holdings', jurisdiction: 'GB', pageSize: 20, after };
  // A JSON POST asking for JSON: the direct lane's, where it is on.
  await leaveWhileHeld(
    stack,
    upstream,
    { query: print(SearchCompaniesDocument), variables },
    { accept: 'application/graphql-response+json' },
  );
  // By then the request's signal has told the resolver waiting on the first window that its client had gone.
  // The lane ran it (the warm-up, written by the lane) and handed Yoga its result with the error to write.
  await eventually(() => expect(writtenBy).toEqual(lane ? { direct: 1, yoga: 1 } : { direct: 0, yoga: 0 }));

  const cachedBefore = stack.gateway.cacheBytes;
  upstream.release();
  // The first window's answer is in the caches; a page still being cut would have asked for the second window by then.
  await eventually(() => expect(stack!.gateway.cacheBytes).toBeGreaterThan(cachedBefore));
  expect(stack.lookup.counters.searchQueries.slice(searchesBefore)).toEqual(['q=holdings&jurisdiction=GB&pageSize=50&page=1']);

  const { body } = await stack.execute(SearchCompaniesDocument, variables);
  expect(body.data!.searchCompanies.edges).toHaveLength(20);
  expect(stack.lookup.counters.searchQueries.slice(searchesBefore)).toEqual([
    'q=holdings&jurisdiction=GB&pageSize=50&page=1',
    'q=holdings&jurisdiction=GB&pageSize=50&page=2',
  ]);
});
