import { afterEach, describe, expect, it } from 'vitest';
import { DOCUMENT_CACHE_SHARE } from '../../../src/gateway/graphql/document-cache.js';
import { RESPONSE_CACHE_SHARE } from '../../../src/gateway/response-cache/response-cache.js';
import { CACHE_ENTRY_BYTES } from '../../../src/upstream/cache-entry.js';
import { dataTags } from '../../../src/upstream/cache-tags.js';
import { normalizeSearchQuery } from '../../../src/upstream/search-query.js';
import { windowBytes } from '../../../src/upstream/window-bytes.js';
import { NO_REPEATS, windowKey } from '../../../src/upstream/window-size.js';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { accessToken, searchRequest } from '../../support/lookup-client.js';
import { startStack, type Stack } from '../../support/stack.js';

/**
 * Each entry counts its bytes and CACHE_ENTRY_BYTES, which covers what holds
 * them (test/upstream/cache-entry.test.ts): counted at their bytes alone,
 * small entries would hold several times the bound.
 */
const SEARCHES = 300;
/** Searches that match no company: a window of no results, and a short answer. */
const nothing = (i: number) => `qx${i}zq`;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/**
 * Sends `count` distinct requests in order, then again from the last to the
 * first, and returns how many of the second round `missed` says were not
 * answered from the cache. Going backwards, the requests the cache kept (the
 * most recent ones) are all hits before the first miss, and a miss evicts only
 * requests already passed; so the kept ones are the count less the misses.
 */
async function keptOf(count: number, send: (i: number) => Promise<void>, misses: () => number): Promise<number> {
  for (let i = 0; i < count; i++) await send(i);
  const before = misses();
  for (let i = count - 1; i >= 0; i--) await send(i);
  return count - (misses() - before);
}

/**
 * Safety bound for one test's 600 requests made one after another: about 10 s on a quiet machine, and twice the
 * suite's 20 s with both cores busy, which is not the behaviour under test.
 */
const SEQUENTIAL_REQUESTS_TIMEOUT_MS = 120_000;

describe('cache memory bound', { timeout: SEQUENTIAL_REQUESTS_TIMEOUT_MS }, () => {
  it('keeps as many windows of empty searches as their bytes and one entry charge each fit in their share of CACHE_MAX_BYTES', async () => {
    const maxBytes = 32 * 1024;
    stack = await startStack({ gateway: { cacheMaxBytes: maxBytes, responseCache: false, cacheTtlMs: 600_000, rateLimitPerMinute: 0 } });
    const running = stack;
    const kept = await keptOf(
      SEARCHES,
      async (i) => {
        const { body } = await running.execute(DashboardSearchDocument, { q: nothing(i), jurisdiction: 'GB' });
        expect(body.data?.searchCompanies.totalCount).toBe(0);
      },
      () => running.lookup.counters.searchRequests,
    );
    // Without answers, the windows have all but the documents' share.
    const share = maxBytes - Math.floor(maxBytes * DOCUMENT_CACHE_SHARE);
    // Each window is kept as the body the upstream sent for it.
    const token = await accessToken(running.lookup);
    const counted = async (i: number) => {
      const query = { q: nothing(i), jurisdiction: 'GB' };
      const { text: body } = await searchRequest(running.lookup, { ...query, pageSize: '50' }, token);
      // Its times are 8 bytes each, whatever they hold.
      const window = { slots: [], repeated: NO_REPEATS, total: 0, fetchedAt: 0, fetchedAtWall: 0, body };
      return windowBytes(windowKey(query, 0), window, 50).byteLength + CACHE_ENTRY_BYTES;
    };
    // Counted at the 24 bytes of their upstream JSON, all 300 stayed: 7 KiB counted, 73 KiB held.
    expect(kept).toBeLessThanOrEqual(Math.floor(share / (await counted(0))));
    expect(kept).toBeGreaterThanOrEqual(Math.floor(share / (await counted(SEARCHES - 1))));
  });

  it('keeps as many short answers as their bodies, tags, ETags and one entry charge each fit in their share of CACHE_MAX_BYTES', async () => {
    // Large enough that one short answer fits in the share one entry may take (MAX_ENTRY_SHARE).
    const maxBytes = 128 * 1024;
    stack = await startStack({ gateway: { cacheMaxBytes: maxBytes, cacheTtlMs: 600_000, rateLimitPerMinute: 0 } });
    const running = stack;
    const path = (i: number) => `/graphql?query=${encodeURIComponent(`{searchCompanies(q:"${nothing(i)}",jurisdiction:GB){totalCount}}`)}`;
    const accept = 'application/json';
    // What each answer counts besides the entry charge: its body, its tags and its ETag.
    let longest = 0;
    let shortest = Number.POSITIVE_INFINITY;
    const yogaRuns = () => running.logs.filter((line) => line.includes('"Parsing request to extract GraphQL parameters"')).length;
    const kept = await keptOf(
      SEARCHES,
      async (i) => {
        const { status, text, headers } = await running.get(path(i), { accept });
        expect(status).toBe(200);
        expect(JSON.parse(text).data.searchCompanies.totalCount).toBe(0);
        const tags = [...dataTags(normalizeSearchQuery(nothing(i), 'GB'), [])].join(' ');
        const counted = Buffer.byteLength(text) + tags.length + String(headers.etag).length;
        longest = Math.max(longest, counted);
        shortest = Math.min(shortest, counted);
      },
      yogaRuns,
    );
    const share = Math.floor(maxBytes * RESPONSE_CACHE_SHARE);
    // Counted at their key, body and 256 bytes (before entries counted what they hold), 78 stayed, holding about 49 KiB in a 32 KiB share.
    expect(kept).toBeLessThanOrEqual(Math.floor(share / (shortest + CACHE_ENTRY_BYTES)));
    expect(kept).toBeGreaterThanOrEqual(Math.floor(share / (longest + CACHE_ENTRY_BYTES)));
  });
});
