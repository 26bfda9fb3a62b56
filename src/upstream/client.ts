import { LRUCache } from 'lru-cache';
import type { Company } from './company.js';
import { UpstreamAuthError, UpstreamRejectedQueryError, errorForStatus, type UpstreamError } from './errors.js';
import { readSearchResponse } from './search-response.js';
import { normalizeSearchQuery, searchQueryKey, type SearchQuery } from './search-query.js';
import type { UpstreamLog } from './log.js';
import { TokenManager, type ClientCredentials } from './token-manager.js';
import { UpstreamHttp, type UpstreamHttpOptions } from './upstream-http.js';

export const SEARCH_ENDPOINT = '/v1/company/search';

/** The upstream's largest page: every search asks for a whole window of this size. */
export const UPSTREAM_MAX_PAGE_SIZE = 50;

export interface SearchCacheOptions {
  /** How long a window is fresh. */
  ttlMs: number;
  /** How long past its TTL a window is still served while it is fetched anew. */
  staleWhileRevalidateMs: number;
  /** Upper bound of the cache, counted in bytes of upstream JSON. */
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
  http: Omit<UpstreamHttpOptions, 'baseUrl'>;
  cache: SearchCacheOptions;
  log: UpstreamLog;
}

export interface SearchPageRequest {
  query: SearchQuery;
  /** Position of the first result wanted, counted in the upstream's order. */
  offset: number;
  limit: number;
}

export interface SearchPageEntry {
  /** Position in the upstream's order; positions of results left out as unreadable are skipped. */
  position: number;
  company: Company;
}

export interface SearchPage {
  entries: SearchPageEntry[];
  /** The upstream's total for the search. */
  totalCount: number;
  /** How many of the total can be paged through. */
  reachableCount: number;
  hasNextPage: boolean;
  /** When the oldest window this page was cut from was fetched. */
  fetchedAt: Date;
  /** Whether that window is past its TTL. */
  stale: boolean;
}

interface SearchWindow {
  slots: (Company | null)[];
  total: number;
  fetchedAt: number;
  bytes: number;
}

interface WindowRequest {
  query: SearchQuery;
  index: number;
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

  constructor(options: UpstreamClientOptions) {
    this.#options = options;
    this.#http = new UpstreamHttp({ baseUrl: options.baseUrl, ...options.http });
    this.#tokens = new TokenManager(this.#http, options.credentials, options.log);
    this.#windows = new LRUCache<string, SearchWindow, WindowRequest>({
      maxSize: options.cache.maxBytes,
      sizeCalculation: (window) => window.bytes,
      ttl: options.cache.ttlMs,
      allowStale: true,
      ignoreFetchAbort: true,
      fetchMethod: (_key, stale, { context, options: fetchOptions }) =>
        this.#fetchWindow(context).catch((error: unknown) => {
          // A failed refresh behind a stale answer reaches no client; say so here.
          if (stale !== undefined && fetchOptions.allowStale) {
            options.log.warn({ code: (error as UpstreamError).code }, 'Background refresh of a stale search failed');
          }
          throw error;
        }),
    });
  }

  /**
   * The results from `offset` to `offset + limit` of a search, cut from cached
   * windows. The first window is always read first: it says how far the
   * results reach, so nothing past their end is ever asked upstream.
   */
  async searchPage({ query, offset, limit }: SearchPageRequest): Promise<SearchPage> {
    const head = await this.#window({ query, index: 0 });
    const end = offset + limit;
    const entries: SearchPageEntry[] = [];
    let reachable = this.#options.pageParam !== undefined && isFull(head) ? head.total : head.slots.length;
    let oldest = head;
    for (let index = Math.floor(offset / UPSTREAM_MAX_PAGE_SIZE); index * UPSTREAM_MAX_PAGE_SIZE < Math.min(end, reachable); index++) {
      const window = index === 0 ? head : await this.#window({ query, index });
      if (window.fetchedAt < oldest.fetchedAt) oldest = window;
      window.slots.forEach((company, slot) => {
        const position = index * UPSTREAM_MAX_PAGE_SIZE + slot;
        if (company && position >= offset && position < end) entries.push({ position, company });
      });
      if (!isFull(window)) reachable = Math.min(reachable, index * UPSTREAM_MAX_PAGE_SIZE + window.slots.length);
    }
    return {
      entries,
      totalCount: head.total,
      reachableCount: reachable,
      hasNextPage: end < reachable,
      fetchedAt: new Date(oldest.fetchedAt),
      stale: Date.now() - oldest.fetchedAt > this.#options.cache.ttlMs,
    };
  }

  /** The company with this exact number, found by searching for the number. */
  async findCompany(jurisdiction: string, companyNumber: string): Promise<Company | null> {
    const query = normalizeSearchQuery(companyNumber, jurisdiction);
    const window = await this.#window({ query, index: 0 });
    const wanted = query.q.toUpperCase();
    return (
      window.slots.find(
        (company) => company?.jurisdiction === query.jurisdiction && company.companyNumber.toUpperCase() === wanted,
      ) ?? null
    );
  }

  close(): Promise<void> {
    this.#windows.clear();
    return this.#http.close();
  }

  async #window(request: WindowRequest): Promise<SearchWindow> {
    const key = `${searchQueryKey(request.query)}\u0000${request.index}`;
    const allowStale = this.#windows.getRemainingTTL(key) > -this.#options.cache.staleWhileRevalidateMs;
    const window = await this.#windows.fetch(key, { context: request, allowStale });
    if (!window) throw new Error(`Search cache returned no window for ${SEARCH_ENDPOINT}`);
    return window;
  }

  async #fetchWindow(request: WindowRequest): Promise<SearchWindow> {
    const token = await this.#tokens.getToken();
    const response = await this.#searchWith(token, request);
    if (response.status !== 401) return this.#readWindow(response, request);
    this.#tokens.invalidate(token);
    const retried = await this.#searchWith(await this.#tokens.getToken(), request);
    if (retried.status === 401) {
      throw new UpstreamAuthError(`Company lookup service refused a freshly issued token on GET ${SEARCH_ENDPOINT} (401)`);
    }
    return this.#readWindow(retried, request);
  }

  #searchWith(token: string, { query, index }: WindowRequest) {
    const { pageParam } = this.#options;
    return this.#http.request({
      method: 'GET',
      endpoint: SEARCH_ENDPOINT,
      query: {
        q: query.q,
        jurisdiction: query.jurisdiction,
        pageSize: String(UPSTREAM_MAX_PAGE_SIZE),
        ...(pageParam === undefined ? {} : { [pageParam]: String(index + 1) }),
      },
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
  }

  #readWindow(response: { status: number; body: string }, { query }: WindowRequest): SearchWindow {
    const where = `GET ${SEARCH_ENDPOINT}`;
    if (response.status === 400) {
      this.#options.log.warn({ reason: upstreamMessage(response.body) }, `Company lookup service rejected a search on ${where}`);
      throw new UpstreamRejectedQueryError(`Company lookup service rejected the search on ${where} (400)`);
    }
    if (response.status !== 200) throw errorForStatus(response.status, where);
    const read = readSearchResponse(response.body, query.jurisdiction, where);
    if (read.invalidFields.length > 0) {
      this.#options.log.warn(
        { jurisdiction: query.jurisdiction, fields: read.invalidFields.slice(0, 20), count: read.invalidFields.length },
        'Upstream sent malformed fields; read them as null',
      );
    }
    return { slots: read.slots, total: read.total, fetchedAt: Date.now(), bytes: Buffer.byteLength(response.body) };
  }
}

const MAX_UPSTREAM_MESSAGE_LENGTH = 200;

/** The `message` of an upstream error body, shortened, for the log; clients get a fixed message. */
function upstreamMessage(body: string): string {
  try {
    const { message } = JSON.parse(body) as { message?: unknown };
    if (typeof message === 'string' && message !== '') return message.slice(0, MAX_UPSTREAM_MESSAGE_LENGTH);
  } catch {
    // A non-JSON error body has no reason worth logging.
  }
  return 'no reason given';
}
