import { afterEach, describe, expect, it } from 'vitest';
import { RESPONSE_CACHE_SHARE } from '../../../src/gateway/response-cache/response-cache.js';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { startStack, type Stack } from '../../support/stack.js';

/**
 * Heap one window of an empty search holds after GC, cache entry and key
 * included, as scripts/calibrate-cache-sizes.ts measured it (Node 20, 64-bit;
 * its latest output is in docs/behaviour.md, *What the caches count*).
 */
const EMPTY_WINDOW_HELD_BYTES = 281;
/**
 * What a kept answer holds beyond its key and body: the cache's entry, the
 * answer object and the Buffer's heap objects and bookkeeping outside the heap
 * (the same script: 809 bytes for a 150-byte answer under the card query's 109-character key).
 */
const ANSWER_HELD_BEYOND_KEY_AND_BODY = 530;
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
  it('keeps no more windows of empty searches than the memory they hold fits in CACHE_MAX_BYTES', async () => {
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
    // Counted at the 24 bytes of their JSON, all 300 stayed: 7 KiB counted, 73 KiB held.
    expect(kept).toBeLessThanOrEqual(Math.floor(maxBytes / EMPTY_WINDOW_HELD_BYTES));
    // Nor counted at much more than they hold.
    expect(kept).toBeGreaterThanOrEqual(Math.floor(maxBytes / (2 * EMPTY_WINDOW_HELD_BYTES)));
  });

  it('keeps no more short answers than the memory they hold fits in their share of CACHE_MAX_BYTES', async () => {
    // Large enough that one short answer fits in the share one entry may take (MAX_ENTRY_SHARE).
    const maxBytes = 128 * 1024;
    stack = await startStack({ gateway: { cacheMaxBytes: maxBytes, cacheTtlMs: 600_000, rateLimitPerMinute: 0 } });
    const running = stack;
    const path = (i: number) => `/graphql?query=${encodeURIComponent(`{searchCompanies(q:"${nothing(i)}",jurisdiction:GB){totalCount}}`)}`;
    const accept = 'application/json';
    let longestBody = 0;
    const yogaRuns = () => running.logs.filter((line) => line.includes('"Parsing request to extract GraphQL parameters"')).length;
    const kept = await keptOf(
      SEARCHES,
      async (i) => {
        const { status, text } = await running.get(path(i), { accept });
        expect(status).toBe(200);
        expect(JSON.parse(text).data.searchCompanies.totalCount).toBe(0);
        longestBody = Math.max(longestBody, Buffer.byteLength(text));
      },
      yogaRuns,
    );
    const share = Math.floor(maxBytes * RESPONSE_CACHE_SHARE);
    // A GET's key: method, Accept, an empty Content-Type and the URL's SHA-256 in base64, one byte a character.
    const longestKeyAndBody = `GET\n${accept}\n\n`.length + 44 + longestBody;
    // Counted at their key, body and 256 bytes (before entries counted what they hold), 78 stayed, holding about 49 KiB in a 32 KiB share.
    expect(kept).toBeLessThanOrEqual(Math.floor(share / (longestKeyAndBody + ANSWER_HELD_BEYOND_KEY_AND_BODY)));
    expect(kept).toBeGreaterThanOrEqual(Math.floor(share / (2 * (longestKeyAndBody + ANSWER_HELD_BEYOND_KEY_AND_BODY))));
  });
});
