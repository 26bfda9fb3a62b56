import type { Company } from './company.js';
import type { SearchQuery } from './search-query.js';

/** Up to UPSTREAM_MAX_PAGE_SIZE results of a search, as read: the search cache keeps it as bytes (window-bytes.ts). */
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
  /**
   * The upstream's body the window was read from, when this instance read it
   * and it held no results past the page: what the search cache keeps of it
   * (window-bytes.ts). Never published to
   * the fleet, whose windows carry their results instead.
   */
  body?: string | undefined;
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
