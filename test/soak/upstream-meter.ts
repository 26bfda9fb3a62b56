import type { LookupServiceCounters } from '../../src/lookup-service/index.js';
import type { UpstreamCalls } from './tally.js';

/** Reads the lookup service's counters stretch by stretch: each take() covers the time since the last. */
export class UpstreamMeter {
  readonly total: UpstreamCalls = { searches: 0, tokens: 0, maxSearchesInFlight: 0 };

  constructor(private readonly counters: LookupServiceCounters) {
    counters.reset();
  }

  take(): UpstreamCalls {
    const { searchRequests, tokenRequests, maxSearchesInFlight } = this.counters;
    this.counters.reset();
    const calls = { searches: searchRequests, tokens: tokenRequests, maxSearchesInFlight };
    addCalls(this.total, calls);
    return calls;
  }

  /** The total so far, including calls since the last take(), without ending the stretch. */
  peek(): UpstreamCalls {
    const { searchRequests, tokenRequests, maxSearchesInFlight } = this.counters;
    return {
      searches: this.total.searches + searchRequests,
      tokens: this.total.tokens + tokenRequests,
      maxSearchesInFlight: Math.max(this.total.maxSearchesInFlight, maxSearchesInFlight),
    };
  }
}

export function addCalls(into: UpstreamCalls, calls: UpstreamCalls): void {
  into.searches += calls.searches;
  into.tokens += calls.tokens;
  into.maxSearchesInFlight = Math.max(into.maxSearchesInFlight, calls.maxSearchesInFlight);
}
