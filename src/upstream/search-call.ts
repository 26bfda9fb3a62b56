import { UpstreamAuthError } from '../errors/upstream-errors.js';
import { reportFailure, type UpstreamLog } from './log.js';
import { type Clock, type Sleep, systemClock, systemSleep } from './resilience/clock.js';
import { NO_UPSTREAM_OBSERVER, type UpstreamObserver, type UpstreamStatus } from './observer.js';
import { retryDelay, type RetryPolicy } from './resilience/retry-policy.js';
import type { SearchQuery } from './search-query.js';
import type { SharedStore } from './shared-store.js';
import { readWindow, type WindowReading } from './window-reading.js';
import { type TokenLifetime, TokenManager } from './token-manager.js';
import type { ClientCredentials } from './token-request.js';
import { UpstreamHttp, type UpstreamHttpOptions } from './upstream-http.js';
import type { SearchWindow } from './window-size.js';

export const SEARCH_ENDPOINT = '/v1/company/search';

/** The upstream's largest page: every search asks for a whole window of this size. */
export const UPSTREAM_MAX_PAGE_SIZE = 50;

/** What a search answered 401 reads as: the token it was sent with was refused. */
const TOKEN_REFUSED = Symbol('token refused');

/**
 * Most tokens one search tries: its own, one another instance published (both may have been revoked, as by a
 * restart of the upstream), then one the token endpoint issues for it. A search refusing that one too fails.
 */
const MAX_TOKENS_PER_SEARCH = 3;

/** Window `index` (0-based, UPSTREAM_MAX_PAGE_SIZE results each) of the search for `query`. */
export interface WindowRequest {
  query: SearchQuery;
  index: number;
  /** A refresh of a window still served stale: nobody waits for it. */
  background?: boolean | undefined;
}

export interface SearchCallOptions {
  baseUrl: URL;
  credentials: ClientCredentials;
  /**
   * Name of the upstream's 1-based page parameter. Without it, only the first
   * window of each search can be asked for.
   */
  pageParam: string | undefined;
  http: Omit<UpstreamHttpOptions, 'baseUrl' | 'log' | 'clock' | 'shared' | 'observer'>;
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
  /** Time for the circuit breaker, the token and the windows' age; tests move it on instead of sleeping. */
  clock?: Clock | undefined;
  /** What the instances of a fleet share; undefined: this instance keeps its own. */
  shared?: SharedStore | undefined;
  /** Told of every call, retry, held-back call and token renewal; none by default. */
  observer?: UpstreamObserver | undefined;
  /** Waits out each retry's backoff; tests see the backoffs instead of sitting through them. */
  sleep?: Sleep | undefined;
}

/**
 * The search endpoint as the window cache calls it: one connection pool, one
 * service token renewed when a search is answered 401, and retries with
 * backoff after failures worth retrying.
 */
export class SearchCall {
  readonly #http: UpstreamHttp;
  readonly #tokens: TokenManager;
  readonly #options: SearchCallOptions;
  readonly #reading: WindowReading;

  constructor(options: SearchCallOptions) {
    this.#options = options;
    const { observer } = options;
    this.#http = new UpstreamHttp({
      baseUrl: options.baseUrl,
      ...options.http,
      log: options.log,
      clock: options.clock,
      shared: options.shared,
      observer,
    });
    this.#tokens = new TokenManager(this.#http, {
      credentials: options.credentials,
      callTimeoutMs: options.callTimeoutMs,
      refusedCooldownMs: options.refusedCredentialsCooldownMs,
      lifetime: options.tokenLifetime,
      log: options.log,
      clock: options.clock,
      shared: options.shared,
      observer,
    });
    this.#reading = {
      log: options.log,
      redact: (text) => this.#tokens.redact(text),
      pageSize: UPSTREAM_MAX_PAGE_SIZE,
      clock: options.clock ?? systemClock,
    };
  }

  /**
   * One upstream fetch of a window, with its own deadline so that it ends even
   * when every caller has stopped waiting. A search that fails with a 5xx, a
   * refused or reset connection or a 429 is retried after a backoff, as long
   * as the next attempt can start before the deadline; the token is never
   * retried here.
   */
  async fetchWindow(request: WindowRequest): Promise<SearchWindow> {
    const expiresAt = Date.now() + this.#options.callTimeoutMs;
    for (let retry = 0; ; retry++) {
      try {
        return await this.#searchAuthorized(request, expiresAt);
      } catch (error) {
        const delayMs = retry < this.#options.retry.retries ? retryDelay(error, retry, this.#options.retry) : undefined;
        if (delayMs === undefined || Date.now() + delayMs >= expiresAt) throw error;
        reportFailure(this.#options.log, error, 'Search failed; retrying after a backoff', {
          retry: retry + 1,
          delayMs: Math.round(delayMs),
        });
        (this.#options.observer ?? NO_UPSTREAM_OBSERVER).retry(SEARCH_ENDPOINT);
        await (this.#options.sleep ?? systemSleep)(delayMs);
      }
    }
  }

  /** Gets a token now if none is held; rejects as a search would. */
  async fetchToken(): Promise<void> {
    await this.#tokens.getToken();
  }

  status(): UpstreamStatus {
    return { ...this.#http.status(), token: this.#tokens.status() };
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /**
   * A search with the current token. A 401 on a token this instance did not
   * receive from the token endpoint since the search began (one read from the
   * fleet's store, or an older one) drops it, here and from the store if it is
   * still there, and tries again with a new one; a 401 on one it did is the
   * upstream refusing what it has just issued: the search fails, and token
   * requests back off. Only the token endpoint refuses the credentials.
   */
  async #searchAuthorized(request: WindowRequest, expiresAt: number): Promise<SearchWindow> {
    const issuedBefore = this.#tokens.issued;
    for (let attempt = 1; ; attempt++) {
      const token = await this.#tokens.current();
      const window = await this.#searchWith(token.value, request, expiresAt);
      if (window !== TOKEN_REFUSED) return window;
      this.#tokens.invalidate(token.value);
      const justIssued = token.issued !== undefined && token.issued > issuedBefore;
      if (justIssued || attempt >= MAX_TOKENS_PER_SEARCH) {
        const detail = `Company lookup service refused the service token on GET ${SEARCH_ENDPOINT} (401), ${justIssued ? 'one it had just issued' : `the ${attempt}th in a row`}`;
        throw this.#tokens.newTokenRefused(new UpstreamAuthError(detail));
      }
    }
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
        background: request.background,
      },
      expiresAt,
      (response) => (response.status === 401 ? TOKEN_REFUSED : readWindow(response, `GET ${SEARCH_ENDPOINT}`, request, this.#reading)),
    );
  }
}
