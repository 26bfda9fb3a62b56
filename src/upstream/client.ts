import type { Tracer } from '@opentelemetry/api';
import type { TagMatcher } from './cache-tags.js';
import type { UpstreamStatus } from './observer.js';
import type { Deadline } from './resilience/deadline.js';
import { SearchCall, type SearchCallOptions } from './search-call.js';
import { type CompanyLookup, type SearchPage, type SearchPageRequest, SearchWindows } from './search-windows.js';
import type { SearchCacheOptions } from './window-cache.js';

export interface UpstreamClientOptions extends SearchCallOptions {
  cache: SearchCacheOptions;
  /** Where tracing is on: the tracer of the cache lookup spans. */
  tracer?: Tracer | undefined;
}

/**
 * The gateway's only way to the lookup service: cached search windows
 * (search-windows.ts) filled through one search call with its token, retries
 * and connection pool (search-call.ts).
 */
export class UpstreamClient {
  readonly #call: SearchCall;
  readonly #windows: SearchWindows;

  constructor(options: UpstreamClientOptions) {
    this.#call = new SearchCall(options);
    this.#windows = new SearchWindows({
      cache: options.cache,
      pageParam: options.pageParam,
      log: options.log,
      tracer: options.tracer,
      shared: options.shared,
      fetchTimeoutMs: options.callTimeoutMs,
      observer: options.observer,
      clock: options.clock,
      fetchWindow: (request) => this.#call.fetchWindow(request),
    });
  }

  searchPage(request: SearchPageRequest, deadline: Deadline): Promise<SearchPage> {
    return this.#windows.searchPage(request, deadline);
  }

  findCompany(jurisdiction: string, companyNumber: string, deadline: Deadline): Promise<CompanyLookup> {
    return this.#windows.findCompany(jurisdiction, companyNumber, deadline);
  }

  /** Drops this instance's windows holding what `matcher`'s tag names (cache-tags.ts); returns how many went. */
  purge(matcher: TagMatcher): number {
    return this.#windows.purge(matcher);
  }

  /** Bytes the search cache holds now, as its bound counts them. */
  get cacheBytes(): number {
    return this.#windows.bytes;
  }

  /** Asks for the service token now, so that refused credentials show at start rather than at the first search. */
  fetchToken(): Promise<void> {
    return this.#call.fetchToken();
  }

  /** The circuit, the call slots and the token as they are now. */
  status(): UpstreamStatus {
    return this.#call.status();
  }

  close(): Promise<void> {
    this.#windows.clear();
    return this.#call.close();
  }
}
