/**
 * What the upstream client tells whoever watches it (the gateway's metrics).
 * Defined here so that data flows one way: the client calls these and knows
 * nothing of what listens. Every argument is a constant of the client's own,
 * never a value from a request, and no call allocates.
 */
export interface UpstreamObserver {
  /** One HTTP exchange with the upstream, from the moment it had a slot to its answer read (or its failure). */
  call(endpoint: string, statusClass: UpstreamStatusClass, outcome: UpstreamCallOutcome, seconds: number): void;
  /** A search tried again after a failure worth retrying. */
  retry(endpoint: string): void;
  /** How long a call waited for one of the UPSTREAM_MAX_IN_FLIGHT slots (0 when one was free). */
  slotWait(seconds: number): void;
  /** A call the circuit breaker held back without calling the upstream. */
  heldBack(reason: HoldReason): void;
  /** How a lookup of the window cache was answered. */
  windowLookup(result: CacheLookupResult): void;
  /** A window missing in process, looked for in the fleet's store: found there or not. */
  sharedWindowLookup(found: boolean): void;
  /** A token request that ran, why it ran and how it ended. */
  tokenRenewal(trigger: TokenRenewalTrigger, result: TokenRenewalResult): void;
}

export type UpstreamStatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'none';
export type UpstreamCallOutcome = 'success' | 'http_error' | 'bad_response' | 'timeout' | 'connection_error' | 'error';
/** `budget_spent`: UPSTREAM_MAX_CALLS_PER_MINUTE left no call for it. */
export type HoldReason = 'circuit_open' | 'rate_limited' | 'budget_spent';
export type CacheLookupResult = 'fresh' | 'stale_while_revalidate' | 'stale_if_error' | 'miss' | 'joined';
/** `initial`: no token yet; `early`: the current one is near its end; `expired`: it has ended; `refused`: a search was answered 401 with it. */
export type TokenRenewalTrigger = 'initial' | 'early' | 'expired' | 'refused';
export type TokenRenewalResult = 'success' | 'credentials_refused' | 'failure';

/** The state of the client a probe or a scrape reads, computed only when asked. */
export interface UpstreamStatus {
  circuit: 'closed' | 'open' | 'half-open';
  callsInFlight: number;
  callsWaiting: number;
  token: TokenStatus;
}

export interface TokenStatus {
  /** `none`: never asked for, or dropped after a 401; `refused`: the credentials were refused and the cool-down holds. */
  state: 'none' | 'valid' | 'expired' | 'refused' | 'failing';
  /** Epoch ms (by the client's clock) at which the current token expires. */
  expiresAt: number | undefined;
}

/** Watches nothing: the client's default, costing a call to an empty function. */
export const NO_UPSTREAM_OBSERVER: UpstreamObserver = {
  call() {},
  retry() {},
  slotWait() {},
  heldBack() {},
  windowLookup() {},
  sharedWindowLookup() {},
  tokenRenewal() {},
};

export function statusClassOf(status: number): UpstreamStatusClass {
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return '2xx';
}
