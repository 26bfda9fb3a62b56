const SEARCH_QUERY_LOG_SIZE = 1_000;

/** What the service has received, for tests to assert on. Counted when a request arrives, before any latency. */
export interface LookupServiceCounters {
  readonly tokenRequests: number;
  /** Tokens actually issued (not answers replaced by a fault). */
  readonly tokensIssued: number;
  readonly searchRequests: number;
  /** Searches answered 200 with real results (not answers replaced by a fault). */
  readonly searchesAnswered: number;
  /**
   * The raw query strings of the most recent search requests (at most 1000),
   * oldest first, exactly as sent, e.g. "q=acme&jurisdiction=GB&pageSize=10&page=2".
   */
  readonly searchQueries: readonly string[];
  /**
   * The `traceparent` header of the most recent requests to either endpoint
   * (at most 1000), oldest first, undefined where a request had none.
   */
  readonly traceparents: readonly { path: string; traceparent: string | undefined }[];
  /** Search requests received and not yet answered (or dropped) right now. */
  readonly searchesInFlight: number;
  /** The most search requests that were in flight at once since the last reset. */
  readonly maxSearchesInFlight: number;
  reset(): void;
}

export class Counters implements LookupServiceCounters {
  tokenRequests = 0;
  tokensIssued = 0;
  searchRequests = 0;
  searchesAnswered = 0;
  readonly searchQueries: string[] = [];
  readonly traceparents: { path: string; traceparent: string | undefined }[] = [];
  searchesInFlight = 0;
  maxSearchesInFlight = 0;

  recordSearchRequest(rawQuery: string): void {
    this.searchRequests += 1;
    this.searchQueries.push(rawQuery);
    if (this.searchQueries.length > SEARCH_QUERY_LOG_SIZE) this.searchQueries.shift();
  }

  recordTraceparent(path: string, traceparent: string | undefined): void {
    this.traceparents.push({ path, traceparent });
    if (this.traceparents.length > SEARCH_QUERY_LOG_SIZE) this.traceparents.shift();
  }

  /** Counts a search from its arrival until `settled` (its response closing, however it ends). */
  trackSearchInFlight(settled: { once(event: 'close', listener: () => void): unknown }): void {
    this.searchesInFlight += 1;
    this.maxSearchesInFlight = Math.max(this.maxSearchesInFlight, this.searchesInFlight);
    settled.once('close', () => (this.searchesInFlight -= 1));
  }

  reset(): void {
    this.tokenRequests = 0;
    this.tokensIssued = 0;
    this.searchRequests = 0;
    this.searchesAnswered = 0;
    this.searchQueries.length = 0;
    this.traceparents.length = 0;
    this.maxSearchesInFlight = this.searchesInFlight;
  }
}
