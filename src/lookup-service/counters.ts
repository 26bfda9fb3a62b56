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
  reset(): void;
}

export class Counters implements LookupServiceCounters {
  tokenRequests = 0;
  tokensIssued = 0;
  searchRequests = 0;
  searchesAnswered = 0;
  readonly searchQueries: string[] = [];

  recordSearchRequest(rawQuery: string): void {
    this.searchRequests += 1;
    this.searchQueries.push(rawQuery);
    if (this.searchQueries.length > SEARCH_QUERY_LOG_SIZE) this.searchQueries.shift();
  }

  reset(): void {
    this.tokenRequests = 0;
    this.tokensIssued = 0;
    this.searchRequests = 0;
    this.searchesAnswered = 0;
    this.searchQueries.length = 0;
  }
}
