import { type Span, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { LRUCache } from 'lru-cache';
import type { Company } from './company.js';
import { UpstreamError, type UpstreamErrorCode, UpstreamRejectedQueryError } from '../errors/upstream-errors.js';
import { reportFailure, type UpstreamLog } from './log.js';
import { NO_UPSTREAM_OBSERVER, type UpstreamObserver } from './observer.js';
import { systemClock, type Clock } from './resilience/clock.js';
import { type Deadline, waitWithin } from './resilience/deadline.js';
import { SEARCH_ENDPOINT, UPSTREAM_MAX_PAGE_SIZE, type WindowRequest } from './search-call.js';
import { normalizeSearchQuery, type SearchQuery } from './search-query.js';
import type { CallAdmission, HeldBack, SharedStore } from './shared-store.js';
import { SharedWindows, type WindowFetchClaim } from './shared-windows.js';
import { type SearchWindow, windowEntryBytes, windowKey } from './window-size.js';

export interface SearchCacheOptions {
  /** How long a window is fresh. */
  ttlMs: number;
  /** How long past its TTL a window is still served at once while it is fetched anew. */
  staleWhileRevalidateMs: number;
  /** How long past its TTL a window is still served when fetching it anew fails. */
  staleIfErrorMs: number;
  /** Upper bound of the cache, counted in bytes held: each window as read, its key and bookkeeping (see window-size.ts). */
  maxBytes: number;
}

export interface SearchWindowsOptions {
  cache: SearchCacheOptions;
  /** Whether the upstream pages: without a page parameter, only the first window of each search can be paged through. */
  pageParam: string | undefined;
  log: UpstreamLog;
  /** Where tracing is on: each lookup of a window gets a span, the parent of the upstream calls it makes. */
  tracer?: Tracer | undefined;
  observer?: UpstreamObserver | undefined;
  /** Judges the windows' age; the same clock stamps their `fetchedAt`. */
  clock?: Clock | undefined;
  /**
   * Fetches one window from the upstream; one call at a time per window, shared by all who wait for it. `admitted`:
   * the fleet's claim on the fetch has admitted its first call (holds and budget), which asks the store no more.
   */
  fetchWindow: (request: WindowRequest, admitted: boolean) => Promise<SearchWindow>;
  /** A fleet's store: a second cache level behind this one, and one fetch per window for the fleet. */
  shared?: SharedFleet | undefined;
  /** How long one fetch may take; another instance waits for it at most this long. */
  fetchTimeoutMs: number;
}

/** The fleet's store, and what admits this instance's calls through it. */
export interface SharedFleet {
  store: SharedStore;
  admission: CallAdmission;
  heldBack: (decision: HeldBack, background: boolean) => Error;
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
  /** When the oldest window this page was cut from was fetched. */
  fetchedAt: Date;
  /** When that window goes past its TTL (epoch ms): the page is stale after it, and so is anything built from it. */
  freshUntil: number;
  /** Set when the page is stale because the upstream failed when asked for fresh results. */
  servedOnError: UpstreamErrorCode | undefined;
}

export interface CompanyLookup {
  company: Company | null;
  fetchedAt: Date;
  /** When the answer goes past its TTL (epoch ms). */
  freshUntil: number;
  /** Set when the answer is past its TTL because the upstream failed when asked again. */
  servedOnError: UpstreamErrorCode | undefined;
}

/** What a lookup in the fleet's store found: a window still served there, and the fetch its claim started, if any. */
interface SharedFound {
  window: SearchWindow | undefined;
  refreshing: Promise<SearchWindow> | undefined;
}

interface WindowRead {
  window: SearchWindow;
  failure?: UpstreamError;
}

/** A short window is the last one: the upstream has nothing after it. */
function isFull(window: SearchWindow): boolean {
  return window.slots.length >= UPSTREAM_MAX_PAGE_SIZE;
}

/**
 * Search windows in an LRU cache keyed by normalized query and window, served
 * by their age (fresh, stale while revalidating, stale if the upstream fails),
 * and the pages and companies cut from them.
 */
export class SearchWindows {
  readonly #windows: LRUCache<string, SearchWindow>;
  readonly #options: SearchWindowsOptions;
  readonly #shared: SharedWindows | undefined;
  /** How long past its fetch a window may be served at all. */
  readonly #maxAgeMs: number;
  readonly #observer: UpstreamObserver;
  /** Fetches under way, by key: a lookup that finds its key here joins that fetch rather than starting one. */
  readonly #fetches = new Map<string, Promise<SearchWindow>>();
  /** Lookups in the fleet's store under way, by key: the requests that miss here together ask the store once. */
  readonly #sharedLookups = new Map<string, Promise<SharedFound>>();
  readonly #clock: Clock;

  constructor(options: SearchWindowsOptions) {
    this.#options = options;
    this.#observer = options.observer ?? NO_UPSTREAM_OBSERVER;
    this.#clock = options.clock ?? systemClock;
    const { ttlMs, staleWhileRevalidateMs, staleIfErrorMs, maxBytes } = options.cache;
    this.#maxAgeMs = ttlMs + Math.max(staleWhileRevalidateMs, staleIfErrorMs);
    this.#shared =
      options.shared &&
      new SharedWindows({
        ...options.shared,
        ttlMs,
        refreshMs: ttlMs + staleWhileRevalidateMs,
        maxAgeMs: this.#maxAgeMs,
        pageSize: UPSTREAM_MAX_PAGE_SIZE,
        fetchTimeoutMs: options.fetchTimeoutMs,
        clock: this.#clock,
      });
    this.#windows = new LRUCache<string, SearchWindow>({
      maxSize: maxBytes,
      sizeCalculation: windowEntryBytes,
      // Freshness is judged by each window's age in #lookUp; the cache only
      // drops what can no longer be served at all.
      ttl: this.#maxAgeMs,
      // Reads the clock on every check. By default lru-cache reuses one reading for 1 ms through a timer set
      // on access, and on a gateway answering one search at a time that timer wakes the event loop for nothing.
      ttlResolution: 0,
      // An injected clock drives the cache's own expiry too; otherwise lru-cache keeps its monotonic performance.now().
      ...(options.clock ? { perf: { now: options.clock } } : {}),
    });
  }

  /**
   * A page of a search, cut from cached windows. The first window is always
   * read first: it says how far the results reach, so nothing past their end
   * is ever asked upstream.
   */
  async searchPage(request: SearchPageRequest, deadline: Deadline): Promise<SearchPage> {
    const head = await this.#window({ query: request.query, index: 0 }, deadline);
    const reachable = this.#options.pageParam !== undefined && isFull(head.window) ? head.window.total : head.window.slots.length;
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
    const reads = await Promise.all(indexes.map((index) => (index === 0 ? head : this.#window({ query, index }, deadline))));
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
      stale: this.#clock() > this.#freshUntil(oldest),
      fetchedAt: new Date(oldest.fetchedAt),
      freshUntil: this.#freshUntil(oldest),
      servedOnError: failure?.code,
    };
  }

  /** The company with this exact number, found by searching for the number. */
  async findCompany(jurisdiction: string, companyNumber: string, deadline: Deadline): Promise<CompanyLookup> {
    const query = normalizeSearchQuery(companyNumber, jurisdiction);
    const { window, failure } = await this.#window({ query, index: 0 }, deadline);
    const wanted = query.q.toUpperCase();
    const company = window.slots.find(
      (candidate) => candidate?.jurisdiction === query.jurisdiction && candidate.companyNumber.toUpperCase() === wanted,
    );
    return {
      company: company ?? null,
      fetchedAt: new Date(window.fetchedAt),
      freshUntil: this.#freshUntil(window),
      servedOnError: failure?.code,
    };
  }

  /** Bytes the cache holds now, as its bound counts them. */
  get bytes(): number {
    return this.#windows.calculatedSize;
  }

  clear(): void {
    this.#windows.clear();
  }

  /**
   * The one fetch of `key` under way, joined, or one started: alone, the upstream's window; in a fleet, one fetch
   * for the fleet (`claim`: the one a lookup in the store made). Every request waiting for it gets its error; the log
   * gets it once, here. The window is kept only as long as its age allows, and a failure keeps the old one.
   */
  #refresh(key: string, request: WindowRequest, claim?: WindowFetchClaim): Promise<SearchWindow> {
    const inFlight = this.#fetches.get(key);
    if (inFlight !== undefined) {
      // Joined, a claim goes unused: a lock it took is let go, so that nobody waits for it.
      if (claim !== undefined) void this.#shared?.abandon(key, claim);
      return inFlight;
    }
    const background = request.background === true;
    const fetchUpstream = (admitted: boolean) => this.#options.fetchWindow(request, admitted);
    const fetching = (this.#shared ? this.#shared.fetch(key, claim, fetchUpstream, background) : fetchUpstream(false))
      .then((window) => {
        this.#windows.set(key, window, { ttl: this.#remainingMs(window) });
        return window;
      })
      .catch((error: unknown) => {
        reportFailure(this.#options.log, error, background ? 'Background refresh of a stale search failed' : 'Search failed');
        throw error;
      })
      .finally(() => this.#fetches.delete(key));
    // A background refresh has nobody waiting for it: its failure is logged above, never left unhandled.
    fetching.catch(() => {});
    this.#fetches.set(key, fetching);
    return fetching;
  }

  /**
   * In a fleet, a window missing here is looked for in the store, once for every request missing it together: a
   * window still served there is kept here for its remaining age; unless it is fresh, the same round trip claimed
   * its fetch, which starts at once (a background refresh of a window still served).
   */
  #lookUpShared(key: string, request: WindowRequest, shared: SharedWindows): Promise<SharedFound> {
    const inFlight = this.#sharedLookups.get(key);
    if (inFlight !== undefined) return inFlight;
    const { ttlMs, staleWhileRevalidateMs } = this.#options.cache;
    const looking = shared
      .lookup(key)
      .then(({ window, claim }) => {
        if (window !== undefined) this.#windows.set(key, window, { ttl: this.#remainingMs(window) });
        const servable = window !== undefined && this.#clock() - window.fetchedAt <= ttlMs + staleWhileRevalidateMs;
        const refreshing = claim && this.#refresh(key, { ...request, background: servable }, claim);
        return { window, refreshing };
      })
      .finally(() => this.#sharedLookups.delete(key));
    this.#sharedLookups.set(key, looking);
    return looking;
  }

  /** How much longer `window` may be served: a window another instance fetched is not as young as its arrival here. */
  #remainingMs(window: SearchWindow): number {
    return Math.max(1, this.#maxAgeMs - (this.#clock() - window.fetchedAt));
  }

  #freshUntil(window: SearchWindow): number {
    return window.fetchedAt + this.#options.cache.ttlMs;
  }

  /**
   * A window by its age: fresh, it is served; within stale-while-revalidate,
   * it is served while one background fetch renews it; older, the caller waits
   * for a fresh one, and gets the old one back (stale-if-error) when the
   * upstream fails, times out or is held back by the circuit breaker.
   */
  #window(request: WindowRequest, deadline: Deadline): Promise<WindowRead> {
    const { tracer } = this.#options;
    if (tracer === undefined) return this.#lookUp(request, deadline, undefined);
    // The window's index, never its key: the key holds the search terms.
    return tracer.startActiveSpan('search cache lookup', { attributes: { 'cache.window': request.index } }, async (span) => {
      try {
        return await this.#lookUp(request, deadline, span);
      } catch (error) {
        // The upstream error's code, never a message: one may repeat the search terms.
        span.setStatus({ code: SpanStatusCode.ERROR, ...(error instanceof UpstreamError ? { message: error.code } : {}) });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /** The window as #window describes it; `span`, where tracing is on, records how the cache answered. */
  async #lookUp(request: WindowRequest, deadline: Deadline, span: Span | undefined): Promise<WindowRead> {
    const key = windowKey(request.query, request.index);
    const { ttlMs, staleWhileRevalidateMs } = this.#options.cache;
    let cached = this.#windows.get(key);
    // In a fleet, the fetch the lookup in the store started, if it did; and whether this request's lookup started it.
    let refreshing: Promise<SearchWindow> | undefined;
    let started = false;
    // A window being fetched here already is waited for, not looked for in the store.
    if (cached === undefined && this.#shared !== undefined && !this.#fetches.has(key)) {
      started = !this.#sharedLookups.has(key);
      // Judged below by its age, like any window here: fresh, stale while revalidating, or stale if the upstream fails.
      ({ window: cached, refreshing } = await this.#lookUpShared(key, request, this.#shared));
      this.#observer.sharedWindowLookup(cached !== undefined);
    }
    const ageMs = cached ? this.#clock() - cached.fetchedAt : Number.POSITIVE_INFINITY;
    if (cached && ageMs <= ttlMs) {
      span?.setAttribute('cache.result', 'fresh');
      this.#observer.windowLookup('fresh');
      return { window: cached };
    }
    if (cached && ageMs <= ttlMs + staleWhileRevalidateMs) {
      span?.setAttribute('cache.result', 'stale-while-revalidate');
      this.#observer.windowLookup('stale_while_revalidate');
      if (refreshing === undefined) void this.#refresh(key, { ...request, background: true });
      return { window: cached };
    }
    span?.setAttribute('cache.result', 'miss');
    const joined = refreshing === undefined ? this.#fetches.has(key) : !started;
    try {
      const window = await waitWithin(() => refreshing ?? this.#refresh(key, request), deadline, `GET ${SEARCH_ENDPOINT}`);
      this.#observer.windowLookup(joined ? 'joined' : 'miss');
      return { window };
    } catch (error) {
      // The cache itself drops a window past TTL + stale-if-error, so any window it still holds may stand in.
      if (cached === undefined || !(error instanceof UpstreamError) || error instanceof UpstreamRejectedQueryError) {
        this.#observer.windowLookup(joined ? 'joined' : 'miss');
        throw error;
      }
      this.#observer.windowLookup('stale_if_error');
      // Each failed call is logged where it fails; one line per stale answer would flood an outage's logs.
      this.#options.log.debug({ code: error.code, ageMs }, 'Upstream failed; serving a stale search window');
      span?.setAttributes({ 'cache.result': 'stale-if-error', 'error.type': error.code });
      return { window: cached, failure: error };
    }
  }
}
