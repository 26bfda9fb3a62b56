import { systemClock, type Clock } from './clock.js';

/** How long to hold back after the `failures`-th failure in a row, ending with `error`. */
export type BackoffDelay<E> = (error: E, failures: number) => number;

/** `baseMs`, doubling with each failure in a row, at most `maxMs`. */
export function exponentialDelay(baseMs: number, maxMs: number): (failures: number) => number {
  return (failures) => Math.min(baseMs * 2 ** Math.max(0, failures - 1), maxMs);
}

/**
 * Holds attempts back after a failure: until the wait `delay` gives has
 * passed, `held()` returns the failure that started it, for callers to answer
 * with at once instead of trying again. A success forgets the run of failures.
 */
export class FailureBackoff<E> {
  readonly #delay: BackoffDelay<E>;
  readonly #clock: Clock;
  #failures = 0;
  #held: { error: E; until: number } | undefined;

  constructor(delay: BackoffDelay<E>, clock: Clock = systemClock) {
    this.#delay = delay;
    this.#clock = clock;
  }

  /** The failure to answer with while attempts are held back; undefined when one may start. */
  held(): E | undefined {
    const held = this.#held;
    return held && this.#clock() < held.until ? held.error : undefined;
  }

  /** Records a failure and returns how long attempts are now held back. */
  fail(error: E): number {
    this.#failures += 1;
    const waitMs = this.#delay(error, this.#failures);
    this.#held = { error, until: this.#clock() + waitMs };
    return waitMs;
  }

  succeed(): void {
    this.#failures = 0;
    this.#held = undefined;
  }
}
