import { LRUCache } from 'lru-cache';
import { defaultDataSet, type CompanyResult } from '../../../src/lookup-service/index.js';
import { repeatedSlots } from '../../../src/upstream/repeated-results.js';
import { UPSTREAM_MAX_PAGE_SIZE } from '../../../src/upstream/search-call.js';
import { readSearchResponse } from '../../../src/upstream/search-response.js';
import { NO_REPEATS, type SearchWindow, windowEntryBytes, windowKey } from '../../../src/upstream/window-size.js';
import { serveParent } from '../../harness/serve-parent.js';
import type { WindowShape } from '../window-shapes.js';
import { systemClock, wallTime } from '../../../src/upstream/resilience/clock.js';

/**
 * Measures, in a process of its own started with --expose-gc, what windows of
 * each shape hold on the heap against what the search cache counts for them:
 * nothing else allocates here between two readings, as it would in a test
 * process shared with everything else a run does.
 */
const companies = defaultDataSet();
const page = (results: readonly unknown[]) => JSON.stringify({ results, total: results.length });

const BODIES: Record<WindowShape, { count: number; body: (i: number) => string }> = {
  'no results': { count: 20_000, body: () => page([]) },
  'one result': { count: 5_000, body: (i) => page([companies[i]]) },
  '50 distinct results': { count: 300, body: (i) => page(companies.slice(i * 50, i * 50 + 50)) },
  '50 results, every other one a repeat': {
    count: 300,
    body: (i) => page(companies.slice(i * 25, i * 25 + 25).flatMap((company: CompanyResult) => [company, company])),
  },
  '50 results with malformed fields': {
    count: 300,
    body: (i) =>
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
};

function heapUsedAfterGc(): number {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('gc is not exposed; start the child with --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Fills a cache made as the search cache is (a byte bound, TTLs) with windows read from `bodies`, and returns the
 * heap in use with them, and the bytes the cache counts for them. The cache lives only in this function's frame.
 */
function fill(bodies: string[]): { count: number; withWindows: number; counted: number } {
  const windows = new LRUCache<string, SearchWindow>({
    maxSize: Number.MAX_SAFE_INTEGER,
    sizeCalculation: windowEntryBytes,
    ttl: 60_000,
    ttlResolution: 0,
  });
  for (const [i, body] of bodies.entries()) {
    const { slots, total } = readSearchResponse(body, 'GB', 'test', UPSTREAM_MAX_PAGE_SIZE);
    // As window-reading.ts keeps a window's repeats: their slots emptied, their numbers listed.
    const repeated = repeatedSlots(slots);
    for (const slot of repeated) slots[slot] = null;
    windows.set(windowKey({ q: `search ${i}`, jurisdiction: 'GB' }, 0), {
      slots,
      repeated: repeated.length > 0 ? repeated : NO_REPEATS,
      total,
      fetchedAt: systemClock(),
      fetchedAtWall: wallTime(systemClock),
    });
  }
  return { count: windows.size, withWindows: heapUsedAfterGc(), counted: windows.calculatedSize };
}

/**
 * What windows of `shape` hold on the heap (what letting them go frees, read back to back) and what the cache counts
 * for them. The bodies are made first: what making them allocates for good (the data set's companies as first read)
 * is then in both readings, not in their difference. The cache is dropped with fill()'s frame: a variable set to
 * undefined here may still be held by a register of this one's.
 */
function measure(shape: WindowShape): { count: number; held: number; counted: number } {
  const { count, body } = BODIES[shape];
  const bodies = Array.from({ length: count }, (_, i) => body(i));
  // A reading can miss the windows' release (the cache still reachable from a frame V8 keeps for a moment, as once
  // seen on a busy host: nothing freed, held below zero): the trial that freed the most is the one that saw them go.
  // Taking the largest held only makes the bound the test guards (counted at least 90 % of held) stricter.
  let best = { count: 0, held: Number.NEGATIVE_INFINITY, counted: 0 };
  for (let trial = 0; trial < 3; trial++) {
    const filled = fill(bodies);
    const held = filled.withWindows - heapUsedAfterGc();
    if (held > best.held) best = { count: filled.count, held, counted: filled.counted };
  }
  return best;
}

serveParent({ measure: (shape) => measure(shape as WindowShape) });
