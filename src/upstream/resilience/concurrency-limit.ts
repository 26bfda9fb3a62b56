import { UpstreamTimeoutError } from '../../errors/upstream-errors.js';
import { timerDelayUntil } from '../../shared/timers.js';

interface Waiter {
  grant(): void;
}

/**
 * At most `max` upstream calls in flight; the rest wait in arrival order, each
 * no longer than its own deadline. A traffic spike becomes a short queue here
 * rather than a burst of 429s from the rate-limited upstream.
 */
export class ConcurrencyLimit {
  readonly #max: number;
  readonly #queue: Waiter[] = [];
  #inFlight = 0;

  constructor(max: number) {
    this.#max = max;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  /** Resolves with the function that gives the slot back, once a slot is free. */
  acquire(expiresAt: number, where: string): Promise<() => void> {
    if (this.#inFlight < this.#max) {
      this.#inFlight += 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve(this.#releaser());
        },
      };
      const timer = setTimeout(() => {
        this.#queue.splice(this.#queue.indexOf(waiter), 1);
        reject(
          new UpstreamTimeoutError(
            `No upstream call slot came free for ${where} within the request deadline (${this.#max} calls in flight)`,
          ),
        );
      }, timerDelayUntil(expiresAt));
      this.#queue.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // The slot passes straight to the next waiter, so #inFlight stays the same.
      if (next) next.grant();
      else this.#inFlight -= 1;
    };
  }
}
