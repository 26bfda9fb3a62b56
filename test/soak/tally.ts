/** What the load saw in answers from the gateway, for one phase or the whole run. */
export class Tally {
  requests = 0;
  /** By HTTP status, or by how the exchange failed (`hung`, `transport:<code>`). */
  readonly outcomes = new Map<string, number>();
  /** GraphQL errors by extensions.code (`(none)` when an error has no code). */
  readonly errorCodes = new Map<string, number>();
  readonly operations = new Map<string, number>();
  /** Answers with a STALE_DATA warning: served from an old copy because the upstream failed. */
  staleOnError = 0;
  /** Connections marked stale without a warning: served while being refreshed. */
  staleRevalidating = 0;
  /** A STALE_DATA warning on a search whose connection says `stale: false`. */
  staleMismatches = 0;
  /** Answers that are not a GraphQL response (or not status 200), with the first few as evidence. */
  invalid = 0;
  readonly invalidSamples: string[] = [];
  /** Answers with data and no errors. */
  clean = 0;
  maxLatencyMs = 0;
  /** Answers that took longer than the gateway's request deadline plus a second. */
  overDeadline = 0;

  count(map: Map<string, number>, key: string, by = 1): void {
    map.set(key, (map.get(key) ?? 0) + by);
  }

  noteInvalid(sample: string): void {
    this.invalid += 1;
    if (this.invalidSamples.length < 5) this.invalidSamples.push(sample.slice(0, 400));
  }

  get errors(): number {
    let total = 0;
    for (const count of this.errorCodes.values()) total += count;
    return total;
  }
}

/** Upstream calls the lookup service counted during one phase or the whole run. */
export interface UpstreamCalls {
  searches: number;
  tokens: number;
  maxSearchesInFlight: number;
}
