import type { TagMatcher } from './cache-tags.js';
import type { Company } from './company.js';
import type { UpstreamErrorCode } from '../errors/upstream-errors.js';
import { systemClock, type Clock } from './resilience/clock.js';
import type { Deadline } from './resilience/deadline.js';
import { UPSTREAM_MAX_PAGE_SIZE } from './search-call.js';
import { normalizeSearchQuery, type SearchQuery } from './search-query.js';
import { WindowCache, type WindowCacheOptions, type WindowRead } from './window-cache.js';
import type { SearchWindow } from './window-size.js';

export interface SearchWindowsOptions extends WindowCacheOptions {
  /** Whether the upstream pages: without a page parameter, only the first window of each search can be paged through. */
  pageParam: string | undefined;
}

export interface SearchPageRequest {
  query: SearchQuery;
  /** The range the page is cut from, in positions of the upstream's order: from `start`, up to `end` (exclusive; unset: the end of the results). */
  start: number;
  end: number | undefined;
  /** Most positions the page spans: the first of the range, or with `fromEnd` the last. */
  limit: number;
  fromEnd: boolean;
}

export interface SearchPageEntry {
  /** Position in the upstream's order; positions of results left out (unreadable or repeated) are skipped. */
  position: number;
  company: Company;
}

export interface SearchPage {
  entries: SearchPageEntry[];
  /** Positions within the page whose results were unreadable and left out. */
  omitted: number[];
  /** The upstream's total for the search. */
  totalCount: number;
  /** How many of the total can be paged through. */
  reachableCount: number;
  /** Whether the search has positions after the page, and before it; both are known whichever way the page was counted. */
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** Whether the oldest window this page was cut from is past its TTL. */
  stale: boolean;
  /** When the oldest window this page was cut from was fetched, on the wall clock. */
  fetchedAt: Date;
  /** When that window goes past its TTL (on the clock, resilience/clock.ts): the page is stale after it, and so is anything built from it. */
  freshUntil: number;
  /** Set when the page is stale because the upstream failed when asked for fresh results. */
  servedOnError: UpstreamErrorCode | undefined;
}

export interface CompanyLookup {
  /** The search that looked for it: its number. */
  query: SearchQuery;
  company: Company | null;
  /** When the window it was found in was fetched, on the wall clock. */
  fetchedAt: Date;
  /** When the answer goes past its TTL (on the clock, resilience/clock.ts). */
  freshUntil: number;
  /** Set when the answer is past its TTL because the upstream failed when asked again. */
  servedOnError: UpstreamErrorCode | undefined;
}

/** A short window is the last one: the upstream has nothing after it. */
function isFull(window: SearchWindow): boolean {
  return window.slots.length >= UPSTREAM_MAX_PAGE_SIZE;
}

/** The pages and companies cut from the search windows the cache (window-cache.ts) holds. */
export class SearchWindows {
  readonly #cache: WindowCache;
  readonly #pageParam: string | undefined;
  readonly #clock: Clock;

  constructor(options: SearchWindowsOptions) {
    this.#cache = new WindowCache(options);
    this.#pageParam = options.pageParam;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * A page of a search, cut from cached windows. The first window is always
   * read first: it says how far the results reach, so nothing past their end
   * is ever asked upstream.
   */
  async searchPage(request: SearchPageRequest, deadline: Deadline): Promise<SearchPage> {
    const head = await this.#cache.read({ query: request.query, index: 0 }, deadline);
    const reachable = this.#pageParam !== undefined && isFull(head.window) ? head.window.total : head.window.slots.length;
    const page = await this.#cut(request, head, reachable, deadline);
    // Counted back from the end, the page was placed by how far the first window said the results reach; when a
    // short window shows they end sooner, it is placed again, once: the windows read stay cached, and an upstream
    // contradicting itself again gets the shorter page rather than more calls.
    const pageEnd = Math.min(request.end ?? reachable, reachable);
    if (!request.fromEnd || page.reachableCount >= pageEnd) return page;
    return this.#cut(request, head, page.reachableCount, deadline);
  }

  /** The page `request` asks for, given how far the results reach as far as is known. */
  async #cut(request: SearchPageRequest, head: WindowRead, reachableBefore: number, deadline: Deadline): Promise<SearchPage> {
    const { query, limit, fromEnd } = request;
    const rangeEnd = Math.min(request.end ?? reachableBefore, reachableBefore);
    const rangeStart = Math.min(request.start, rangeEnd);
    const start = fromEnd ? Math.max(rangeStart, rangeEnd - limit) : rangeStart;
    const end = fromEnd ? rangeEnd : Math.min(rangeEnd, rangeStart + limit);
    const entries: SearchPageEntry[] = [];
    const omitted: number[] = [];
    let reachable = reachableBefore;
    let oldest = head.window;
    let failure = head.failure;
    const first = Math.floor(start / UPSTREAM_MAX_PAGE_SIZE);
    // An empty range reads nothing past the first window.
    const windows = end > start ? Math.ceil(end / UPSTREAM_MAX_PAGE_SIZE) - first : 0;
    const indexes = Array.from({ length: windows }, (_, i) => first + i);
    // The windows are fetched together, not one round trip after another.
    const reads = await Promise.all(indexes.map((index) => (index === 0 ? head : this.#cache.read({ query, index }, deadline))));
    for (const [i, read] of reads.entries()) {
      const index = indexes[i]!;
      const { window } = read;
      failure ??= read.failure;
      if (window.fetchedAt < oldest.fetchedAt) oldest = window;
      window.slots.forEach((company, slot) => {
        const position = index * UPSTREAM_MAX_PAGE_SIZE + slot;
        if (position < start || position >= end) return;
        if (company) entries.push({ position, company });
        // At most UPSTREAM_MAX_PAGE_SIZE repeats, looked up only for the empty slots.
        else if (!window.repeated.includes(slot)) omitted.push(position);
      });
      if (!isFull(window)) {
        // A short window is the last one: whatever came after it is past the end.
        reachable = Math.min(reachable, index * UPSTREAM_MAX_PAGE_SIZE + window.slots.length);
        break;
      }
    }
    return {
      entries,
      omitted,
      totalCount: head.window.total,
      reachableCount: reachable,
      hasNextPage: end < reachable,
      hasPreviousPage: start > 0,
      stale: this.#clock() > this.#cache.freshUntil(oldest),
      fetchedAt: new Date(oldest.fetchedAtWall),
      freshUntil: this.#cache.freshUntil(oldest),
      servedOnError: failure?.code,
    };
  }

  /** The company with this exact number, found by searching for the number. */
  async findCompany(jurisdiction: string, companyNumber: string, deadline: Deadline): Promise<CompanyLookup> {
    const query = normalizeSearchQuery(companyNumber, jurisdiction);
    const { window, failure } = await this.#cache.read({ query, index: 0 }, deadline);
    const wanted = query.q.toUpperCase();
    const company = window.slots.find(
      (candidate) => candidate?.jurisdiction === query.jurisdiction && candidate.companyNumber.toUpperCase() === wanted,
    );
    return {
      query,
      company: company ?? null,
      fetchedAt: new Date(window.fetchedAtWall),
      freshUntil: this.#cache.freshUntil(window),
      servedOnError: failure?.code,
    };
  }

  /** Bytes the search cache holds now, as its bound counts them. */
  get bytes(): number {
    return this.#cache.bytes;
  }

  clear(): void {
    this.#cache.clear();
  }

  /** Drops the windows holding what `matcher`'s tag names; returns how many went. */
  purge(matcher: TagMatcher): number {
    return this.#cache.purge(matcher);
  }
}
