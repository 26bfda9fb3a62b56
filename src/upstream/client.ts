import { setTimeout as pause } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { Company } from './company.js';
import { UpstreamAuthError, UpstreamError, UpstreamRejectedQueryError, type UpstreamErrorCode } from './errors.js';
import { reportFailure, type UpstreamLog } from './log.js';
import type { Clock } from './resilience/clock.js';
import { waitWithin, type Deadline } from './resilience/deadline.js';
import { retryDelay, type RetryPolicy } from './resilience/retry-policy.js';
import { readWindow, type WindowReading } from './search-window.js';
import { normalizeSearchQuery, type SearchQuery } from './search-query.js';
import { TokenManager, type ClientCredentials, type TokenLifetime } from './token-manager.js';
import { UpstreamHttp, type UpstreamHttpOptions } from './upstream-http.js';
import { windowEntryBytes, windowKey, type SearchWindow } from './window-size.js';

export const SEARCH_ENDPOINT = '/v1/company/search';

/** What a search answered 401 reads as: the token it was sent with was refused. */
const TOKEN_REFUSED = Symbol('token refused');

/** The upstream's largest page: every search asks for a whole window of this size. */
export const UPSTREAM_MAX_PAGE_SIZE = 50;

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

export interface UpstreamClientOptions {
  baseUrl: URL;
  credentials: ClientCredentials;
  /**
   * Name of the upstream's 1-based page parameter. Without it, only the first
   * window of each search can be paged through.
   */
  pageParam: string | undefined;
  http: Omit<UpstreamHttpOptions, 'baseUrl' | 'log' | 'clock'>;
  cache: SearchCacheOptions;
  retry: RetryPolicy;
  /**
   * How long one upstream fetch, shared by every request waiting for it, may
   * take with its token, retries and backoffs. Callers stop waiting at their
   * own deadlines; the fetch goes on for the others and for the cache.
   */
  callTimeoutMs: number;
  /** After the upstream refuses the credentials, how long before they are offered again. */
  refusedCredentialsCooldownMs: number;
  tokenLifetime: TokenLifetime;
  log: UpstreamLog;
  /** Time for the circuit breaker and the token; tests move it on instead of sleeping. */
  clock?: Clock | undefined;
}

export interface SearchPageRequest {
  query: SearchQuery;
  /** Position of the first result wanted, counted in the upstream's order. */
  offset: number;
  limit: number;
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
  hasNextPage: boolean;
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

interface WindowRequest {
  query: SearchQuery;
  index: number;
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
 * The gateway's only way to the lookup service: one connection pool, one
 * service token, and an LRU cache of search windows keyed by normalized query.
 */
export class UpstreamClient {
  readonly #http: UpstreamHttp;
  readonly #tokens: TokenManager;
  readonly #windows: LRUCache<string, SearchWindow, WindowRequest>;
  readonly #options: UpstreamClientOptions;
  readonly #reading: WindowReading;

  constructor(options: UpstreamClientOptions) {
    this.#options = options;
    this.#http = new UpstreamHttp({ baseUrl: options.baseUrl, ...options.http, log: options.log, clock: options.clock });
    this.#tokens = new TokenManager(this.#http, {
      credentials: options.credentials,
      callTimeoutMs: options.callTimeoutMs,
      refusedCooldownMs: options.refusedCredentialsCooldownMs,
      lifetime: options.tokenLifetime,
      log: options.log,
      clock: options.clock,
    });
    this.#reading = { log: options.log, redact: (text) => this.#tokens.redact(text) };
    const { ttlMs, staleWhileRevalidateMs, staleIfErrorMs, maxBytes } = options.cache;
    this.#windows = new LRUCache<string, SearchWindow, WindowRequest>({
      maxSize: maxBytes,
      sizeCalculation: windowEntryBytes,
      // Freshness is judged by each window's age in #window; the cache only
      // drops what can no longer be served at all.
      ttl: ttlMs + Math.max(staleWhileRevalidateMs, staleIfErrorMs),
      // Reads the clock on every check. By default lru-cache reuses one reading for 1 ms through a timer set
      // on access, and on a gateway answering one search at a time that timer wakes the event loop for nothing.
      ttlResolution: 0,
      // A failed refresh keeps the old window for stale-if-error.
      noDeleteOnFetchRejection: true,
      ignoreFetchAbort: true,
      fetchMethod: (_key, stale, { context, options: fetchOptions }) =>
        this.#fetchWindow(context).catch((error: unknown) => {
          // Every request waiting for this fetch gets its error; the log gets it once, here.
          const background = stale !== undefined && fetchOptions.allowStale;
          reportFailure(options.log, error, background ? 'Background refresh of a stale search failed' : 'Search failed');
          throw error;
        }),
    });
  }

  /**
   * The results from `offset` to `offset + limit` of a search, cut from cached
   * windows. The first window is always read first: it says how far the
   * results reach, so nothing past their end is ever asked upstream.
   */
  async searchPage({ query, offset, limit }: SearchPageRequest, deadline: Deadline): Promise<SearchPage> {
    const head = await this.#window({ query, index: 0 }, deadline);
    const end = offset + limit;
    const entries: SearchPageEntry[] = [];
    const omitted: number[] = [];
    let reachable = this.#options.pageParam !== undefined && isFull(head.window) ? head.window.total : head.window.slots.length;
    let oldest = head.window;
    let failure = head.failure;
    const first = Math.floor(offset / UPSTREAM_MAX_PAGE_SIZE);
    const indexes = Array.from({ length: Math.max(0, Math.ceil(Math.min(end, reachable) / UPSTREAM_MAX_PAGE_SIZE) - first) }, (_, i) => first + i);
    // The windows after the first are fetched together, not one round trip after another.
    const reads = await Promise.all(indexes.map((index) => (index === 0 ? head : this.#window({ query, index }, deadline))));
    for (const [i, read] of reads.entries()) {
      const index = indexes[i]!;
      const { window } = read;
      failure ??= read.failure;
      if (window.fetchedAt < oldest.fetchedAt) oldest = window;
      window.slots.forEach((company, slot) => {
        const position = index * UPSTREAM_MAX_PAGE_SIZE + slot;
        if (position < offset || position >= end) return;
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

  /** Bytes the search cache holds now, as its bound counts them. */
  get cacheBytes(): number {
    return this.#windows.calculatedSize;
  }

  close(): Promise<void> {
    this.#windows.clear();
    return this.#http.close();
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
  async #window(request: WindowRequest, deadline: Deadline): Promise<WindowRead> {
    const key = windowKey(request.query, request.index);
    const { ttlMs, staleWhileRevalidateMs } = this.#options.cache;
    const cached = this.#windows.get(key);
    const ageMs = cached ? Date.now() - cached.fetchedAt : Number.POSITIVE_INFINITY;
    if (cached && ageMs <= ttlMs) return { window: cached };
    if (cached && ageMs <= ttlMs + staleWhileRevalidateMs) {
      void this.#windows.fetch(key, { context: request, forceRefresh: true, allowStale: true });
      return { window: cached };
    }
    try {
      const window = await waitWithin(
        () => this.#windows.fetch(key, { context: request, forceRefresh: true }),
        deadline,
        `GET ${SEARCH_ENDPOINT}`,
      );
      if (!window) throw new Error(`Search cache returned no window for ${SEARCH_ENDPOINT}`);
      return { window };
    } catch (error) {
      // The cache itself drops a window past TTL + stale-if-error, so any window it still holds may stand in.
      if (cached === undefined || !(error instanceof UpstreamError) || error instanceof UpstreamRejectedQueryError) throw error;
      // Each failed call is logged where it fails; one line per stale answer would flood an outage's logs.
      this.#options.log.debug({ code: error.code, ageMs }, 'Upstream failed; serving a stale search window');
      return { window: cached, failure: error };
    }
  }

  /**
   * One upstream fetch of a window, with its own deadline so that it ends even
   * when every caller has stopped waiting. A search that fails with a 5xx, a
   * refused or reset connection or a 429 is retried after a backoff, as long
   * as the next attempt can start before the deadline; the token is never
   * retried here.
   */
  async #fetchWindow(request: WindowRequest): Promise<SearchWindow> {
    const expiresAt = Date.now() + this.#options.callTimeoutMs;
    for (let retry = 0; ; retry++) {
      const token = await this.#tokens.getToken();
      try {
        return await this.#searchAuthorized(token, request, expiresAt);
      } catch (error) {
        const delayMs = retry < this.#options.retry.retries ? retryDelay(error, retry, this.#options.retry) : undefined;
        if (delayMs === undefined || Date.now() + delayMs >= expiresAt) throw error;
        reportFailure(this.#options.log, error, 'Search failed; retrying after a backoff', {
          retry: retry + 1,
          delayMs: Math.round(delayMs),
        });
        await pause(delayMs);
      }
    }
  }

  /** A search with `token`; a 401 drops the token and tries once more with a new one. */
  async #searchAuthorized(token: string, request: WindowRequest, expiresAt: number): Promise<SearchWindow> {
    const window = await this.#searchWith(token, request, expiresAt);
    if (window !== TOKEN_REFUSED) return window;
    this.#tokens.invalidate(token);
    const renewed = await this.#tokens.getToken();
    const retried = await this.#searchWith(renewed, request, expiresAt);
    if (retried === TOKEN_REFUSED) {
      // A token refused right after it was issued means the credentials are no good for searching.
      this.#tokens.invalidate(renewed);
      throw this.#tokens.refuse(
        new UpstreamAuthError(
          `Company lookup service refused the service token on GET ${SEARCH_ENDPOINT} (401), and again after it was renewed`,
        ),
      );
    }
    return retried;
  }

  #searchWith(token: string, request: WindowRequest, expiresAt: number): Promise<SearchWindow | typeof TOKEN_REFUSED> {
    const { pageParam } = this.#options;
    const { query, index } = request;
    return this.#http.request(
      {
        method: 'GET',
        endpoint: SEARCH_ENDPOINT,
        query: {
          q: query.q,
          jurisdiction: query.jurisdiction,
          pageSize: String(UPSTREAM_MAX_PAGE_SIZE),
          ...(pageParam === undefined ? {} : { [pageParam]: String(index + 1) }),
        },
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      },
      expiresAt,
      (response) => (response.status === 401 ? TOKEN_REFUSED : readWindow(response, `GET ${SEARCH_ENDPOINT}`, request, this.#reading)),
    );
  }
}
