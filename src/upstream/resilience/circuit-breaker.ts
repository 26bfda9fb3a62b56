import { UpstreamCircuitOpenError, UpstreamRateLimitHoldError } from '../../errors/upstream-errors.js';
import type { UpstreamLog } from '../log.js';
import { systemClock, type Clock } from './clock.js';

export interface CircuitBreakerOptions {
  /** Failures in a row that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit holds calls back before one probe may pass. */
  cooldownMs: number;
  /** The longest cool-down a Retry-After from the upstream may ask for; the upstream does not decide how long calls stop. */
  maxRetryAfterMs: number;
  log: UpstreamLog;
  clock?: Clock | undefined;
  /** Told each time the circuit opens, e.g. to hold a fleet's other instances back as long. */
  onOpen?: ((cooldownMs: number, rateLimited: boolean) => void) | undefined;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * Stops calling an upstream that keeps failing. After `failureThreshold`
 * failures in a row it opens and every call fails at once for `cooldownMs`
 * (longer when the upstream asked for more with Retry-After, up to
 * `maxRetryAfterMs`); then exactly one
 * call, the probe, goes through: its success closes the circuit, its failure
 * opens it again.
 */
export class CircuitBreaker {
  readonly #options: CircuitBreakerOptions;
  readonly #clock: Clock;
  #state: CircuitState = 'closed';
  #failures = 0;
  #openUntil = 0;
  #rateLimited = false;

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** Open until its cool-down has passed, though the state changes to half-open only when the next call comes. */
  get state(): CircuitState {
    return this.#state === 'open' && this.#clock() >= this.#openUntil ? 'half-open' : this.#state;
  }

  /** Lets a call through, or throws `UpstreamCircuitOpenError`. Every admitted call must report its outcome. */
  admit(where: string): void {
    if (this.#state === 'closed') return;
    const now = this.#clock();
    if (this.#state === 'open' && now >= this.#openUntil) {
      this.#state = 'half-open';
      return;
    }
    // Half-open, the probe's answer is due any moment: the wait is then 0, told as 1 s.
    const waitMs = Math.max(0, this.#openUntil - now);
    const nextTry = `the next try is in ${Math.ceil(waitMs / 1000)} s`;
    // Clients told of a rate limit know to slow down; "unavailable" would not say so.
    if (this.#rateLimited) {
      throw new UpstreamRateLimitHoldError(
        `Company lookup service is not called for ${where}: it answered 429 (rate limited) at the last try; ${nextTry}`,
        waitMs,
      );
    }
    throw new UpstreamCircuitOpenError(
      `Company lookup service is not called for ${where}: it failed ${this.#failures} times in a row; ${nextTry}`,
      waitMs,
    );
  }

  recordSuccess(): void {
    if (this.#state === 'half-open') {
      this.#options.log.info({ circuit: 'closed' }, 'Company lookup service answered the probe; calls resume');
      this.#state = 'closed';
    }
    if (this.#state === 'closed') this.#failures = 0;
  }

  /** A failed call; `rateLimited` when it was a 429, which may name how long to wait. */
  recordFailure({ rateLimited = false, retryAfterMs = 0 }: { rateLimited?: boolean; retryAfterMs?: number | undefined } = {}): void {
    this.#failures += 1;
    this.#rateLimited = rateLimited;
    if (this.#state === 'half-open' || (this.#state === 'closed' && this.#failures >= this.#options.failureThreshold)) {
      const cooldownMs = Math.max(this.#options.cooldownMs, Math.min(retryAfterMs, this.#options.maxRetryAfterMs));
      this.#state = 'open';
      this.#openUntil = this.#clock() + cooldownMs;
      this.#options.log.warn(
        { circuit: 'open', failures: this.#failures, cooldownMs },
        'Company lookup service keeps failing; holding calls back',
      );
      this.#options.onOpen?.(cooldownMs, rateLimited);
    }
  }
}
