import { type Span, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { LRUCache } from 'lru-cache';
import { UpstreamError, UpstreamRejectedQueryError } from '../errors/upstream-errors.js';
import type { TagMatcher } from './cache-tags.js';
import { reportFailure, type UpstreamLog } from './log.js';
import { NO_UPSTREAM_OBSERVER, type UpstreamObserver } from './observer.js';
import { systemClock, type Clock } from './resilience/clock.js';
import { type Deadline, waitWithin } from './resilience/deadline.js';
import { SEARCH_ENDPOINT, UPSTREAM_MAX_PAGE_SIZE, type WindowRequest } from './search-call.js';
import type { SharedStore } from './shared-store.js';
import { SharedWindows, type WindowFetchClaim } from './shared-windows.js';
import { entryBytes, entryKey } from './cache-entry.js';
import { keyOfWindowBytes, windowBytes, windowBytesHoldCompany, windowFromBytes } from './window-bytes.js';
import { queryOfWindowKey, type SearchWindow, windowKey } from './window-size.js';

export interface SearchCacheOptions {
  /** How long a window is fresh. */
  ttlMs: number;
  /** How long past its TTL a window is still served at once while it is fetched anew. */
  staleWhileRevalidateMs: number;
  /** How long past its TTL a window is still served when fetching it anew fails. */
  staleIfErrorMs: number;
  /** Upper bound of the cache, counted in bytes held: each window's bytes (window-bytes.ts) and its entry's (cache-entry.ts). */
  maxBytes: number;
}

export interface WindowCacheOptions {
  cache: SearchCacheOptions;
  log: UpstreamLog;
  /** Where tracing is on: each lookup of a window gets a span, the parent of the upstream calls it makes. */
  tracer?: Tracer | undefined;
  observer?: UpstreamObserver | undefined;
  /** Judges the windows' age; the same clock stamps their `fetchedAt` (and its wall time, their `fetchedAtWall`). */
  clock?: Clock | undefined;
  /** Fetches one window from the upstream; one call at a time per window, shared by all who wait for it. */
  fetchWindow: (request: WindowRequest) => Promise<SearchWindow>;
  /** A fleet's store: a second cache level behind this one, and one fetch per window for the fleet. */
  shared?: SharedStore | undefined;
  /** How long one fetch may take; another instance waits for it at most this long. */
  fetchTimeoutMs: number;
}

/** What a lookup in the fleet's store found: a window still served there, and the fetch its claim started, if any. */
interface SharedFound {
  window: SearchWindow | undefined;
  refreshing: Promise<SearchWindow> | undefined;
}

/** A window as a lookup found it, and the failure it stands in for when it is served stale because the upstream failed. */
export interface WindowRead {
  window: SearchWindow;
  failure?: UpstreamError;
}

/**
 * Search windows in an LRU cache keyed by normalized query and window,
 * served by their age (fresh, stale while revalidating, stale if the upstream
 * fails), one fetch at a time per window; in a fleet, with the fleet's store
 * as a second level and one fetch per window for the fleet.
 *
 * A window is held as bytes (window-bytes.ts) and read back only for a
 * request that needs it; the requests waiting for its fetch get the window
 * as read from the upstream.
 */
export class WindowCache {
  /** Each window's bytes, under its key's digest (cache-entry.ts). */
  readonly #windows: LRUCache<string, Buffer>;
  readonly #options: WindowCacheOptions;
  readonly #shared: SharedWindows | undefined;
  /** How long past its fetch a window may be served at all. */
  readonly #maxAgeMs: number;
  readonly #observer: UpstreamObserver;
  /** Fetches under way, by key: a lookup that finds its key here joins that fetch rather than starting one. */
  readonly #fetches = new Map<string, Promise<SearchWindow>>();
  /** Lookups in the fleet's store under way, by key: the requests that miss here together ask the store once. */
  readonly #sharedLookups = new Map<string, Promise<SharedFound>>();
  readonly #clock: Clock;
  /**
   * Counts purges: a fetch or a lookup in the fleet's store begun before one keeps nothing here (what it brings may
   * be what the purge dropped), and no request arriving after one joins it.
   */
  #purges = 0;

  constructor(options: WindowCacheOptions) {
    this.#options = options;
    this.#observer = options.observer ?? NO_UPSTREAM_OBSERVER;
    this.#clock = options.clock ?? systemClock;
    const { ttlMs, staleWhileRevalidateMs, staleIfErrorMs, maxBytes } = options.cache;
    this.#maxAgeMs = ttlMs + Math.max(staleWhileRevalidateMs, staleIfErrorMs);
    this.#shared =
      options.shared &&
      new SharedWindows({
        store: options.shared,
        ttlMs,
        maxAgeMs: this.#maxAgeMs,
        pageSize: UPSTREAM_MAX_PAGE_SIZE,
        fetchTimeoutMs: options.fetchTimeoutMs,
        clock: this.#clock,
      });
    this.#windows = new LRUCache<string, Buffer>({
      maxSize: maxBytes,
      sizeCalculation: entryBytes,
      // Freshness is judged by each window's age in #lookUp; the cache only
      // drops what can no longer be served at all.
      ttl: this.#maxAgeMs,
      // Reads the clock on every check. By default lru-cache reuses one reading for 1 ms through a timer set
      // on access, and on a gateway answering one search at a time that timer wakes the event loop for nothing.
      ttlResolution: 0,
      // The cache's own expiry on the clock the windows' ages are judged by.
      perf: { now: this.#clock },
    });
  }

  /** Bytes the cache holds now, as its bound counts them. */
  get bytes(): number {
    return this.#windows.calculatedSize;
  }

  clear(): void {
    this.#windows.clear();
  }

  /**
   * Drops every window `matcher` says holds its tag, and returns how many
   * went. Fetches and lookups under way are left to those already waiting for
   * them and kept out of the cache: a request from now on starts its own. A
   * walk over the windows held, once per purge: no request pays for it.
   */
  purge(matcher: TagMatcher): number {
    this.#purges += 1;
    this.#fetches.clear();
    this.#sharedLookups.clear();
    const dropped: string[] = [];
    for (const [key, bytes] of this.#windows.entries()) {
      const held = { holdsCompany: (jurisdiction: string, number: string) => windowBytesHoldCompany(bytes, jurisdiction, number) };
      if (matcher.holds(queryOfWindowKey(keyOfWindowBytes(bytes)), held)) dropped.push(key);
    }
    for (const key of dropped) this.#windows.delete(key);
    return dropped.length;
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
    const purges = this.#purges;
    const fetchUpstream = () => this.#options.fetchWindow(request);
    const fetching = (this.#shared ? this.#shared.fetch(key, request.query, claim, fetchUpstream) : fetchUpstream())
      .then((window) => {
        if (purges === this.#purges) this.#keep(key, window);
        return window;
      })
      .catch((error: unknown) => {
        reportFailure(this.#options.log, error, background ? 'Background refresh of a stale search failed' : 'Search failed');
        throw error;
      })
      .finally(() => {
        if (this.#fetches.get(key) === fetching) this.#fetches.delete(key);
      });
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
    const purges = this.#purges;
    const looking = shared
      .lookup(key)
      .then(({ window, claim }) => {
        if (window !== undefined && purges === this.#purges) this.#keep(key, window);
        const servable = window !== undefined && this.#clock() - window.fetchedAt <= ttlMs + staleWhileRevalidateMs;
        const refreshing = claim && this.#refresh(key, { ...request, background: servable }, claim);
        return { window, refreshing };
      })
      .finally(() => {
        if (this.#sharedLookups.get(key) === looking) this.#sharedLookups.delete(key);
      });
    this.#sharedLookups.set(key, looking);
    return looking;
  }

  /** Keeps `window` as bytes for as long as its age allows. */
  #keep(key: string, window: SearchWindow): void {
    this.#windows.set(entryKey(key), windowBytes(key, window, UPSTREAM_MAX_PAGE_SIZE), { ttl: this.#remainingMs(window) });
  }

  /** The window kept for `key`, read back from its bytes, if any. */
  #kept(key: string, request: WindowRequest): SearchWindow | undefined {
    const bytes = this.#windows.get(entryKey(key));
    return bytes && windowFromBytes(bytes, key, request.query.jurisdiction);
  }

  /** How much longer `window` may be served: a window another instance fetched is not as young as its arrival here. */
  #remainingMs(window: SearchWindow): number {
    return Math.max(1, this.#maxAgeMs - (this.#clock() - window.fetchedAt));
  }

  /** When `window` goes past its TTL, on this cache's clock. */
  freshUntil(window: SearchWindow): number {
    return window.fetchedAt + this.#options.cache.ttlMs;
  }

  /**
   * A window by its age: fresh, it is served; within stale-while-revalidate,
   * it is served while one background fetch renews it; older, the caller waits
   * for a fresh one, and gets the old one back (stale-if-error) when the
   * upstream fails, times out or is held back by the circuit breaker.
   */
  read(request: WindowRequest, deadline: Deadline): Promise<WindowRead> {
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

  /** The window as read() describes it; `span`, where tracing is on, records how the cache answered. */
  async #lookUp(request: WindowRequest, deadline: Deadline, span: Span | undefined): Promise<WindowRead> {
    const key = windowKey(request.query, request.index);
    const { ttlMs, staleWhileRevalidateMs } = this.#options.cache;
    let cached = this.#kept(key, request);
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
