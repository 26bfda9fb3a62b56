import { LRUCache } from 'lru-cache';
import type { Company } from './company.js';
import { UpstreamAuthError, UpstreamRejectedQueryError, errorForStatus } from './errors.js';
import { readSearchResponse } from './search-response.js';
import { normalizeSearchQuery, searchQueryKey, type SearchQuery } from './search-query.js';
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
  /** Told about fields the upstream sent malformed, which were read as null. */
  onInvalidFields?: (query: SearchQuery, paths: string[]) => void;
}

export interface SearchPageRequest {
  query: SearchQuery;
  offset: number;
  limit: number;
}

export interface SearchPage {
  companies: Company[];
  /** The upstream's total for the search. */
  totalCount: number;
  /** How many of the total can be paged through. */
  reachableCount: number;
  /** When the oldest window this page was cut from was fetched. */
  fetchedAt: Date;
  /** Whether that window is past its TTL. */
  stale: boolean;
}

interface SearchWindow {
  companies: Company[];
  total: number;
  /** Whether the upstream sent a whole window, so a next one may exist. */
  full: boolean;
  fetchedAt: number;
  bytes: number;
}

interface WindowRequest {
  query: SearchQuery;
  index: number;
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
    this.#tokens = new TokenManager(this.#http, options.credentials);
    this.#windows = new LRUCache<string, SearchWindow, WindowRequest>({
      maxSize: options.cache.maxBytes,
      sizeCalculation: (window) => window.bytes,
      ttl: options.cache.ttlMs,
      allowStale: true,
      ignoreFetchAbort: true,
      fetchMethod: (_key, _stale, { context }) => this.#fetchWindow(context),
    });
  }

  /** The results from `offset` to `offset + limit` of a search, cut from cached windows. */
  async searchPage({ query, offset, limit }: SearchPageRequest): Promise<SearchPage> {
    const pages = this.#options.pageParam !== undefined;
    const first = Math.floor(offset / UPSTREAM_MAX_PAGE_SIZE);
    const last = pages ? Math.floor((offset + limit - 1) / UPSTREAM_MAX_PAGE_SIZE) : 0;
    if (!pages && first > 0) {
      const window = await this.#window({ query, index: 0 });
      return pageOf(window, [], window.companies.length, this.#options.cache.ttlMs);
    }
    const indexes = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    const windows = await Promise.all(indexes.map((index) => this.#window({ query, index })));
    const head = windows[0]!;
    const reachable = pages ? reachableWithPaging(windows, first) : head.companies.length;
    const companies = windows
      .flatMap((window) => window.companies)
      .slice(offset - first * UPSTREAM_MAX_PAGE_SIZE)
      .slice(0, limit);
    const oldest = windows.reduce((a, b) => (a.fetchedAt <= b.fetchedAt ? a : b));
    return pageOf({ ...oldest, total: head.total }, companies, reachable, this.#options.cache.ttlMs);
  }

  /** The company with this exact number, found by searching for the number. */
  async findCompany(jurisdiction: string, companyNumber: string): Promise<Company | null> {
    const query = normalizeSearchQuery(companyNumber, jurisdiction);
    const window = await this.#window({ query, index: 0 });
    const wanted = query.q.toUpperCase();
    return (
      window.companies.find(
        (company) => company.jurisdiction === query.jurisdiction && company.companyNumber.toUpperCase() === wanted,
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
      throw new UpstreamRejectedQueryError(
        `Company lookup service rejected the search on ${where}: ${upstreamMessage(response.body)}`,
      );
    }
    if (response.status !== 200) throw errorForStatus(response.status, where);
    const read = readSearchResponse(response.body, query.jurisdiction, where);
    if (read.invalidFields.length > 0) this.#options.onInvalidFields?.(query, read.invalidFields);
    return {
      companies: read.companies,
      total: read.total,
      full: read.received >= UPSTREAM_MAX_PAGE_SIZE,
      fetchedAt: Date.now(),
      bytes: Buffer.byteLength(response.body),
    };
  }
}

function reachableWithPaging(windows: SearchWindow[], first: number): number {
  const short = windows.findIndex((window) => !window.full);
  if (short === -1) return windows[0]!.total;
  return (first + short) * UPSTREAM_MAX_PAGE_SIZE + windows[short]!.companies.length;
}

function pageOf(window: SearchWindow, companies: Company[], reachableCount: number, ttlMs: number): SearchPage {
  return {
    companies,
    totalCount: window.total,
    reachableCount,
    fetchedAt: new Date(window.fetchedAt),
    stale: Date.now() - window.fetchedAt > ttlMs,
  };
}

const MAX_UPSTREAM_MESSAGE_LENGTH = 200;

/** The `message` of an upstream error body, shortened; the body itself is never passed on. */
function upstreamMessage(body: string): string {
  try {
    const { message } = JSON.parse(body) as { message?: unknown };
    if (typeof message === 'string' && message !== '') return message.slice(0, MAX_UPSTREAM_MESSAGE_LENGTH);
  } catch {
    // A non-JSON error body says nothing a client could use.
  }
  return 'no reason given';
}
