/**
 * The search cache holds each window as bytes (window-bytes.ts) and counts
 * exactly those bytes, and one entry's charge (cache-entry.ts), for it.
 */
import { describe, expect, it } from 'vitest';
import { defaultDataSet } from '../../src/lookup-service/index.js';
import { CACHE_ENTRY_BYTES } from '../../src/upstream/cache-entry.js';
import { companyKey } from '../../src/upstream/cache-tags.js';
import { deadlineIn } from '../../src/upstream/resilience/deadline.js';
import type { WindowRequest } from '../../src/upstream/search-call.js';
import { keyOfWindowBytes, windowBytes, windowBytesHoldCompany, windowFromBytes } from '../../src/upstream/window-bytes.js';
import { WindowCache } from '../../src/upstream/window-cache.js';
import { readWindow, readWindowBody } from '../../src/upstream/window-reading.js';
import { normalizeSearchQuery } from '../../src/upstream/search-query.js';
import { NO_REPEATS, type SearchWindow, windowKey } from '../../src/upstream/window-size.js';
import { manualClock } from '../support/clock.js';
import { upstreamCompanyAtEdges, withValueAt } from '../support/declared-companies.js';

const companies = defaultDataSet();

/** A window as window-reading.ts makes one of an upstream body, body included. */
function windowOf(results: unknown[], fetchedAt = 1_764_000_000_000): SearchWindow {
  const body = JSON.stringify({ results, total: results.length });
  const { read, repeated } = readWindowBody(body, 'GB', 'test', 50);
  const kept = repeated.length > 0 ? repeated : NO_REPEATS;
  return { slots: read.slots, repeated: kept, total: read.total, fetchedAt, fetchedAtWall: fetchedAt + 0.5, body };
}

/** The same window as the fleet's store gives one: its results, without the body they were read from. */
function fromTheFleet({ body: _, ...window }: SearchWindow): SearchWindow {
  return window;
}

const SHAPES: Record<string, SearchWindow> = {
  'no results': windowOf([]),
  '50 results': windowOf(companies.slice(0, 50)),
  'every declared field at its edge (a date past year 9999, strings at their caps)': windowOf([upstreamCompanyAtEdges()]),
  'malformed fields, read as null': windowOf([withValueAt(upstreamCompanyAtEdges(), ['addressStructured', 'latitude'], 'north')]),
  'repeated companies': windowOf([companies[0], companies[1], companies[0]]),
  'two-byte characters': windowOf([{ ...companies[2], name: 'Ŝkoda Ĉafé 東京 Ltd' }]),
};

describe('a window held as bytes', () => {
  const key = windowKey({ q: 'acme', jurisdiction: 'GB' }, 0);
  const cases = Object.entries(SHAPES).flatMap(([shape, window]) => [
    { shape, from: 'read here, kept as the body', window },
    { shape, from: 'from the fleet, kept in its form on Redis', window: fromTheFleet(window) },
  ]);

  it.each(cases)('reads back as it was read: $shape, $from', ({ window }) => {
    const back = windowFromBytes(windowBytes(key, window, 50), key, 'GB');
    expect(back).toEqual(window);
    expect(back!.repeated === NO_REPEATS).toBe(window.repeated === NO_REPEATS);
  });

  it.each(cases)('is no window for another key: $from', ({ window }) => {
    const bytes = windowBytes(key, window, 50);
    expect(windowFromBytes(bytes, windowKey({ q: 'acme', jurisdiction: 'GB' }, 1), 'GB')).toBeUndefined();
  });

  it('is a buffer of its own, exactly as long as its bytes, however small', () => {
    for (const { window } of cases) {
      const bytes = windowBytes('k', window, 50);
      expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
    }
  });

  it("kept as the body, takes the bytes of the body, a header with its key and its companies' numbers, not its results written out", () => {
    const window = SHAPES['50 results']!;
    const numbers = window.slots.reduce((sum, company) => sum + company!.companyNumber.length, 0);
    // Per company: its jurisdiction, a space, its number and a line break.
    expect(windowBytes(key, window, 50).byteLength - Buffer.byteLength(window.body!)).toBeLessThan(64 + numbers + 4 * 50);
  });

  it.each(cases)('tells a purge its key and each company it holds, by number as companyKey writes it: $shape, $from', ({ window }) => {
    const bytes = windowBytes(key, window, 50);
    expect(keyOfWindowBytes(bytes)).toBe(key);
    for (const company of window.slots) {
      if (company === null) continue;
      expect(windowBytesHoldCompany(bytes, company.jurisdiction, companyKey(company.companyNumber))).toBe(true);
      // Another jurisdiction, a number cut short or run on, the key, the body: none is a company it holds.
      expect(windowBytesHoldCompany(bytes, company.jurisdiction === 'GB' ? 'IE' : 'GB', companyKey(company.companyNumber))).toBe(false);
      expect(windowBytesHoldCompany(bytes, company.jurisdiction, companyKey(company.companyNumber).slice(1))).toBe(false);
      expect(windowBytesHoldCompany(bytes, company.jurisdiction, `${companyKey(company.companyNumber)}0`)).toBe(false);
    }
    expect(windowBytesHoldCompany(bytes, 'GB', 'ACME')).toBe(false);
    expect(windowBytesHoldCompany(bytes, 'GB', 'results')).toBe(false);
  });
});

describe('a window read from the upstream', () => {
  const reading = { log: { debug() {}, info() {}, warn() {} }, redact: (text: string) => text, pageSize: 50, clock: () => 0 };
  const read = (results: unknown[]) =>
    readWindow(
      { status: 200, body: JSON.stringify({ results, total: 500 }), retryAfterMs: undefined },
      'test',
      { query: { q: 'acme', jurisdiction: 'GB' }, index: 0 },
      reading,
    );

  it('keeps its body when the body holds the page and no more', () => {
    expect(read(companies.slice(0, 50)).body).toBeDefined();
  });

  it('keeps no body that ran past the page: what is held is the page, not what the upstream chose to send', () => {
    const window = read(companies.slice(0, 80));
    expect(window.body).toBeUndefined();
    expect(window.slots).toHaveLength(50);
    const bytes = windowBytes(key0, window, 50);
    expect(bytes.byteLength).toBeLessThan(Buffer.byteLength(JSON.stringify({ results: companies.slice(0, 80) })));
    expect(windowFromBytes(bytes, key0, 'GB')).toEqual(window);
  });
});

const key0 = windowKey({ q: 'acme', jurisdiction: 'GB' }, 0);

describe('the search cache', () => {
  const request = (i: number): WindowRequest => ({ query: { q: `search ${i}`, jurisdiction: 'GB' }, index: 0 });
  /** Window `i` of a cache filled in order: each a different slice of the data set, some empty. */
  /** The caches' clock, standing still: every window is as young as when it was fetched. */
  const clock = manualClock();
  const windowAt = (i: number) => windowOf(companies.slice(i * 7, i * 7 + (i % 5) * 12), clock());

  function cacheOf(maxBytes: number) {
    const fetched: number[] = [];
    const windows = new Map<number, SearchWindow>();
    const cache = new WindowCache({
      cache: { ttlMs: 60_000, staleWhileRevalidateMs: 0, staleIfErrorMs: 0, maxBytes },
      log: { debug() {}, info() {}, warn() {} },
      clock,
      fetchTimeoutMs: 1_000,
      fetchWindow: async ({ query }) => {
        const i = Number(query.q.split(' ')[1]);
        fetched.push(i);
        const window = windowAt(i);
        windows.set(i, window);
        return window;
      },
    });
    const read = (i: number) => cache.read(request(i), deadlineIn(10_000));
    /** What the cache holds for window `i` as fetched last: its bytes and one entry's charge. */
    const counted = (i: number) => windowBytes(windowKey(request(i).query, 0), windows.get(i)!, 50).byteLength + CACHE_ENTRY_BYTES;
    return { cache, fetched, windows, read, counted };
  }

  it('counts exactly the bytes of the windows it holds, and one entry charge each', async () => {
    const { cache, read, counted } = cacheOf(64 * 1024 * 1024);
    for (let i = 0; i < 40; i++) await read(i);
    expect(cache.bytes).toBe(Array.from({ length: 40 }, (_, i) => counted(i)).reduce((sum, bytes) => sum + bytes, 0));
  });

  it('serves a search holding a lone surrogate from its bytes again, as normalized', async () => {
    const cache = cacheOf(64 * 1024 * 1024);
    const query = normalizeSearchQuery('search 3 \ud800', 'gb');
    for (let i = 0; i < 3; i++) await cache.cache.read({ query, index: 0 }, deadlineIn(10_000));
    expect(cache.fetched).toHaveLength(1);
  });

  it('evicts the least recently used windows to stay within its bound, and counts what is left exactly', async () => {
    const maxBytes = 60_000;
    const { cache, fetched, windows, read, counted } = cacheOf(maxBytes);
    for (let i = 0; i < 40; i++) await read(i);
    // The newest windows whose counts fit in the bound, together.
    let kept = 0;
    let bytes = 0;
    while (kept < 40 && bytes + counted(39 - kept) <= maxBytes) bytes += counted(39 - kept++);
    expect(kept).toBeGreaterThan(1);
    expect(kept).toBeLessThan(40);
    expect(cache.bytes).toBe(bytes);
    fetched.length = 0;
    // The kept ones are read from their bytes, newest first (so that reading one evicts nothing kept), as fetched.
    for (let i = 39; i >= 40 - kept; i--) expect((await read(i)).window).toEqual(windows.get(i));
    expect(fetched).toEqual([]);
    await read(40 - kept - 1);
    expect(fetched).toEqual([40 - kept - 1]);
  });
});
