import { randomUUID } from 'node:crypto';
import { UpstreamCircuitOpenError, UpstreamRateLimitHoldError } from '../errors/upstream-errors.js';
import type { SharedBudget } from './resilience/call-budget.js';
import type { CallAdmission, HeldBack, SharedStore } from './shared-store.js';

/**
 * The upstream's "wait" heard by one instance of a fleet and kept by all: a
 * 429 with Retry-After, or a circuit breaker opening, holds every other
 * instance's calls back for as long, as it would hold this one's. The hold
 * is read in the same round trip as what else decides a call (a window's
 * claim, or the call budget), and judged on the store's clock.
 */
export class SharedHold {
  /** This instance: its own holds do not hold it back (it keeps to its own breaker and retries). */
  readonly #id = randomUUID();
  readonly #store: SharedStore;
  /** The last hold written: the call that caused it answers once the others can see it. */
  #written: Promise<void> = Promise.resolve();
  readonly admission: CallAdmission;

  /** `longestHoldMs`: the longest hold any instance writes (the longest Retry-After or circuit cool-down it keeps to). */
  constructor(store: SharedStore, longestHoldMs: number, budget: SharedBudget | undefined) {
    this.#store = store;
    this.admission = { holder: this.#id, longestHoldMs, budget };
  }

  /** Holds the other instances back for `ms`. */
  hold(ms: number, rateLimited: boolean): void {
    if (ms <= 0) return;
    this.#written = this.#store.hold(this.#id, ms, rateLimited);
  }

  /** Resolves once the last hold is written (or the store has failed to take it). */
  written(): Promise<void> {
    return this.#written;
  }
}

/** The error of a call another instance's hold keeps back, as its own breaker would: the next try in `waitMs`. */
export function heldBackByFleet(decision: HeldBack, where: string): UpstreamRateLimitHoldError | UpstreamCircuitOpenError {
  const nextTry = `the next try is in ${Math.ceil(decision.waitMs / 1000)} s`;
  if (decision.reason === 'rate_limited') {
    return new UpstreamRateLimitHoldError(
      `Company lookup service is not called for ${where}: it answered 429 (rate limited) to another instance; ${nextTry}`,
      decision.waitMs,
    );
  }
  return new UpstreamCircuitOpenError(
    `Company lookup service is not called for ${where}: another instance's circuit breaker is open; ${nextTry}`,
    decision.waitMs,
  );
}
