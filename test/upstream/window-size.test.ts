import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';
import { defaultDataSet, type CompanyResult } from '../../src/lookup-service/index.js';
import { UPSTREAM_MAX_PAGE_SIZE } from '../../src/upstream/search-call.js';
import { readSearchResponse } from '../../src/upstream/search-response.js';
import { repeatedSlots } from '../../src/upstream/repeated-results.js';
import { NO_REPEATS, windowEntryBytes, windowKey, type SearchWindow } from '../../src/upstream/window-size.js';

// A full collection on demand, so that the heap read after it is what is held.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function heapUsedAfterGc(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

const companies = defaultDataSet();
const page = (results: readonly unknown[]) => JSON.stringify({ results, total: results.length });

/**
 * Fills a cache made as the search cache is (a byte bound, TTLs) with `count`
 * windows read from `body(i)`, and returns the heap they hold and the bytes
 * the cache counts for them.
 */
function fill(count: number, body: (i: number) => string): { held: number; counted: number } {
  let windows: LRUCache<string, SearchWindow> | undefined = new LRUCache<string, SearchWindow>({
    maxSize: Number.MAX_SAFE_INTEGER,
    sizeCalculation: windowEntryBytes,
    ttl: 60_000,
    ttlResolution: 0,
  });
  for (let i = 0; i < count; i++) {
    const { slots, total } = readSearchResponse(body(i), 'GB', 'test', UPSTREAM_MAX_PAGE_SIZE);
    // As window-reading.ts keeps a window's repeats: their slots emptied, their numbers listed.
    const repeated = repeatedSlots(slots);
    for (const slot of repeated) slots[slot] = null;
    windows.set(windowKey({ q: `search ${i}`, jurisdiction: 'GB' }, 0), {
      slots,
      repeated: repeated.length > 0 ? repeated : NO_REPEATS,
      total,
      fetchedAt: Date.now(),
    });
  }
  expect(windows.size).toBe(count);
  const counted = windows.calculatedSize;
  // What the windows hold is what letting them go frees, read back to back: a heap measured before the fill moves with
  // whatever else the process did meanwhile (code compiled or flushed), which made `held` negative in a full run.
  const withWindows = heapUsedAfterGc();
  windows = undefined;
  const held = withWindows - heapUsedAfterGc();
  return { held, counted };
}

describe('search window size', () => {
  it.each([
    { shape: 'no results', count: 20_000, body: () => page([]) },
    { shape: 'one result', count: 5_000, body: (i: number) => page([companies[i]]) },
    // Hundreds of full windows, megabytes held: what else the process frees or allocates between two heap readings
    // (half a megabyte in a loaded full run) is then a small part of the figure.
    { shape: '50 distinct results', count: 300, body: (i: number) => page(companies.slice(i * 50, i * 50 + 50)) },
    {
      shape: '50 results, every other one a repeat',
      count: 300,
      body: (i: number) => page(companies.slice(i * 25, i * 25 + 25).flatMap((company: CompanyResult) => [company, company])),
    },
    {
      shape: '50 results with malformed fields',
      count: 300,
      body: (i: number) =>
        page(
          companies.slice(i * 50, i * 50 + 50).map((company: CompanyResult) => ({
            ...company,
            incorporatedDate: 'soon',
            addressStructured: { ...company.addressStructured, latitude: 'north', postcode: 7 },
            previousNames: [...company.previousNames, { name: 'Old', startDate: '2001-02-30' }, 'bad'],
            avatar: { image: 'ftp://x', initials: '' },
          })),
        ),
    },
  ])('counts what a window with $shape holds on the heap, never less than 90% of it', ({ count, body }) => {
    const { held, counted } = fill(count, body);
    expect(counted).toBeGreaterThanOrEqual(0.9 * held);
    // Above what is held (shared short strings, room an object may not have), but not far above.
    expect(counted).toBeLessThanOrEqual(1.6 * held);
  });
});
