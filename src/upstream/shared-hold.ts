import { randomUUID } from 'node:crypto';
import { UpstreamCircuitOpenError, UpstreamRateLimitHoldError } from '../errors/upstream-errors.js';
import type { Clock } from './resilience/clock.js';
import type { SharedStore } from './shared-store.js';

const HOLD_KEY = 'upstream:hold';

/** How far another instance's clock may run ahead of this one's before its holds read as longer than any it can write. */
export const HOLD_CLOCK_SKEW_MS = 1_000;

interface Hold {
  /** The instance that was told to wait: it keeps to its own breaker and retries. */
  by: string;
  until: number;
  rateLimited: boolean;
}

/**
 * The upstream's "wait" heard by one instance of a fleet and kept by all: a
 * 429 with Retry-After, or a circuit breaker opening, holds every other
 * instance's calls back for as long, as it would hold this one's.
 */
export class SharedHold {
  readonly #id = randomUUID();
  readonly #store: SharedStore;
  readonly #clock: Clock;
  readonly #longestHoldMs: number;
  /** The last hold written: the call that caused it answers once the others can see it. */
  #written: Promise<void> = Promise.resolve();

  /** `longestHoldMs`: the longest hold any instance writes (the longest Retry-After or circuit cool-down it keeps to). */
  constructor(store: SharedStore, clock: Clock, longestHoldMs: number) {
    this.#store = store;
    this.#clock = clock;
    this.#longestHoldMs = longestHoldMs;
  }

  /** Throws the held-back error another instance's hold calls for, as its own breaker would; nothing when there is none. */
  async admit(where: string): Promise<void> {
    const raw = await this.#store.get(HOLD_KEY);
    const hold = raw === undefined ? undefined : parseHold(raw);
    if (hold === undefined || hold.by === this.#id) return;
    const waitMs = hold.until - this.#clock();
    // Longer than any instance writes: not a gateway's hold (one set by hand, without an expiry, would hold the fleet for good).
    if (waitMs <= 0 || waitMs > this.#longestHoldMs + HOLD_CLOCK_SKEW_MS) return;
    const nextTry = `the next try is in ${Math.ceil(waitMs / 1000)} s`;
    if (hold.rateLimited) {
      throw new UpstreamRateLimitHoldError(
        `Company lookup service is not called for ${where}: it answered 429 (rate limited) to another instance; ${nextTry}`,
        waitMs,
      );
    }
    throw new UpstreamCircuitOpenError(
      `Company lookup service is not called for ${where}: another instance's circuit breaker is open; ${nextTry}`,
      waitMs,
    );
  }

  /** Holds the other instances back for `ms`. */
  hold(ms: number, rateLimited: boolean): void {
    if (ms <= 0) return;
    const hold: Hold = { by: this.#id, until: this.#clock() + ms, rateLimited };
    this.#written = this.#store.set(HOLD_KEY, JSON.stringify(hold), ms);
  }

  /** Resolves once the last hold is written (or the store has failed to take it). */
  written(): Promise<void> {
    return this.#written;
  }
}

function parseHold(raw: string): Hold | undefined {
  try {
    const { by, until, rateLimited } = JSON.parse(raw) as Record<string, unknown>;
    if (typeof by === 'string' && Number.isFinite(until) && typeof rateLimited === 'boolean')
      return { by, until: until as number, rateLimited };
  } catch {
    // Not a hold this gateway wrote: no hold.
  }
  return undefined;
}
