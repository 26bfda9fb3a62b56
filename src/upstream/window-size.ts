import type { Company } from './company.js';
import { exactArrayBytes, HEAP_NUMBER_BYTES, LRU_ENTRY_BYTES, objectBytes, parsedDataBytes, stringBytes } from './heap-size.js';
import type { SearchQuery } from './search-query.js';

/** Up to UPSTREAM_MAX_PAGE_SIZE results of a search, as the search cache keeps them. */
export interface SearchWindow {
  /** One per result the upstream sent, in its order; null where it was unreadable or repeated a company. */
  slots: (Company | null)[];
  /**
   * Slots left out because their company came earlier in the window (no
   * partial error: nothing is missing). Nearly always NO_REPEATS, shared.
   */
  repeated: readonly number[];
  total: number;
  /** When it was fetched on the gateway's clock (resilience/clock.ts), which its age and freshness are judged by. */
  fetchedAt: number;
  /** When it was fetched on the wall clock (epoch ms): what clients are shown, never an age. */
  fetchedAtWall: number;
}

/** The `repeated` of every window without repeats: one array for all of them. */
export const NO_REPEATS: readonly number[] = Object.freeze([]);

/**
 * The search cache's key for window `index` of `query`. Joined rather than
 * concatenated: V8 keeps a concatenation as a tree of its pieces (a 32-byte
 * node for each join, and the pieces themselves), a join as one flat string.
 */
export function windowKey(query: SearchQuery, index: number): string {
  return [query.jurisdiction, query.q, index].join('\u0000');
}

/** The query a window key was made of: the jurisdiction holds no NUL and the index none, whatever `q` holds. */
export function queryOfWindowKey(key: string): SearchQuery {
  const first = key.indexOf('\u0000');
  return { jurisdiction: key.slice(0, first), q: key.slice(first + 1, key.lastIndexOf('\u0000')) };
}

/** The window object: five fields, `fetchedAt` and `fetchedAtWall` boxed numbers (epoch milliseconds are past the small-integer range), and `total` may be one too. */
const WINDOW_OBJECT_BYTES = objectBytes(5) + 3 * HEAP_NUMBER_BYTES;

/**
 * What a cached window holds: the cache's entry, the key, the window object,
 * its slots array (made by `map`, exactly as long as the results) and each
 * company as read (strings, Dates, addresses, previous names). Linear in the
 * window; counted once, when the window enters the cache.
 *
 * Checked with scripts/calibrate-cache-sizes.ts, which compares the heap a
 * window holds after GC with this count for windows of several shapes (its
 * latest output, with its date: docs/behaviour.md, *What the caches count*).
 *
 * Never below what is held; above it by short strings shared between windows
 * (JSON.parse interns those up to 10 characters) and property stores an
 * object may not have (see objectBytes).
 */
export function windowEntryBytes(window: SearchWindow, key: string): number {
  let bytes = LRU_ENTRY_BYTES + stringBytes(key) + WINDOW_OBJECT_BYTES + exactArrayBytes(window.slots.length);
  // Slot numbers are small integers, held in the array itself.
  if (window.repeated !== NO_REPEATS) bytes += exactArrayBytes(window.repeated.length);
  for (const company of window.slots) bytes += parsedDataBytes(company);
  return bytes;
}
