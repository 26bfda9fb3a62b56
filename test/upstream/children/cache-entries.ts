import { defaultDataSet } from '../../../src/lookup-service/index.js';
import { ResponseCache } from '../../../src/gateway/response-cache/response-cache.js';
import { entryKey } from '../../../src/upstream/cache-entry.js';
import { deadlineIn } from '../../../src/upstream/resilience/deadline.js';
import { WindowCache } from '../../../src/upstream/window-cache.js';
import { readWindowBody } from '../../../src/upstream/window-reading.js';
import { NO_REPEATS, type SearchWindow } from '../../../src/upstream/window-size.js';
import { collectGarbage, serveParent } from '../../harness/serve-parent.js';

/**
 * Fills the gateway's caches, in a process of their own (started with
 * --expose-gc and a small young generation), with many entries of one shape,
 * and answers what the process holds more for them after GC (its RSS: the
 * heap and what Buffers hold outside it) against what the cache counts.
 */
const companies = defaultDataSet();

export type CacheEntryShape = 'windows of no results' | 'answers of a few bytes' | 'windows of 50 results';
const MAX_BYTES = 1024 * 1024 * 1024;
/** The caches' clock, standing still: nothing expires while they are filled and measured. */
const NOW = 1_764_000_000_000;
const clock = () => NOW;

/** A window as window-reading.ts makes one, with the body the search cache keeps of it. */
function windowOf(results: unknown[]): SearchWindow {
  const body = JSON.stringify({ results, total: results.length });
  const { read } = readWindowBody(body, 'GB', 'test', 50);
  return { slots: read.slots, repeated: NO_REPEATS, total: read.total, fetchedAt: NOW, fetchedAtWall: NOW, body };
}

/** A cache of `count` entries of `shape`, with the bytes it counts for them. */
async function filled(shape: CacheEntryShape, count: number): Promise<{ cache: unknown; counted: number }> {
  if (shape === 'answers of a few bytes') {
    const cache = new ResponseCache({ maxBytes: MAX_BYTES, maxTtlMs: 600_000, clock });
    const body = Buffer.from('{"data":{"searchCompanies":{"totalCount":0}}}');
    for (let i = 0; i < count; i++) {
      // A content type of its own, as each answer gets one from its response's headers.
      const contentType = ['application/graphql-response+json', 'charset=utf-8'].join('; ');
      const answer = { contentType, body, tags: '', freshUntil: NOW + 600_000, etag: undefined };
      cache.set(entryKey(`answer ${i}`), answer, cache.purges);
    }
    return { cache, counted: cache.bytes };
  }
  const results = shape === 'windows of no results' ? [] : companies.slice(0, 50);
  const cache = new WindowCache({
    cache: { ttlMs: 600_000, staleWhileRevalidateMs: 0, staleIfErrorMs: 0, maxBytes: MAX_BYTES },
    log: { debug() {}, info() {}, warn() {} },
    clock,
    fetchTimeoutMs: 1_000,
    fetchWindow: async () => windowOf(results),
  });
  for (let i = 0; i < count; i++) await cache.read({ query: { q: `search ${i}`, jurisdiction: 'GB' }, index: 0 }, deadlineIn(60_000));
  return { cache, counted: cache.bytes };
}

async function rssAfterGc(): Promise<number> {
  await collectGarbage();
  return process.memoryUsage().rss;
}

serveParent({
  async measure(params) {
    const { shape, count } = params as { shape: CacheEntryShape; count: number };
    // A first cache, kept, so that the code is compiled and the heap's own structures are in place before the first
    // reading; one dropped would leave memory free in malloc's arenas for the second to take without growing.
    const warm = await filled(shape, 100);
    const before = await rssAfterGc();
    const { cache, counted } = await filled(shape, count);
    const held = (await rssAfterGc()) - before;
    // Read after the second reading, so that both caches are alive through it.
    return { held, counted, alive: cache !== undefined && warm.cache !== undefined };
  },
});
