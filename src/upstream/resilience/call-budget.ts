import { UpstreamBudgetSpentError } from '../../errors/upstream-errors.js';
import type { BucketShape } from '../shared-store.js';
import { systemClock, type Clock } from './clock.js';

/** Background refreshes stop while less than this share of the budget is left, so that requests waiting for data get the rest. */
export const BACKGROUND_RESERVE_SHARE = 0.2;

export interface CallBudgetOptions {
  /** Upstream calls per minute, token calls included: at most this many at once, refilled at this rate. */
  perMinute: number;
  clock?: Clock | undefined;
}

/** The fleet's budget as the store's scripts take from it, in the same step as what else decides a call. */
export interface SharedBudget {
  key: string;
  shape: BucketShape;
  /** What a background refresh must leave. */
  reserve: number;
}

/**
 * The upstream calls the partner agreement allows, as a token bucket: a call
 * takes one or is not made. Background refreshes give way first: they take
 * one only while more than BACKGROUND_RESERVE_SHARE of the budget is left.
 * In a fleet the store keeps one bucket for every instance (`shared`); this
 * instance's own decides alone, or while the store cannot answer.
 */
export class CallBudget {
  readonly shared: SharedBudget;
  readonly #clock: Clock;
  #tokens: number;
  #updatedAt: number;

  constructor(options: CallBudgetOptions) {
    this.shared = {
      key: 'upstream:budget',
      shape: { burst: options.perMinute, perMinute: options.perMinute },
      reserve: Math.floor(options.perMinute * BACKGROUND_RESERVE_SHARE),
    };
    this.#clock = options.clock ?? systemClock;
    this.#tokens = options.perMinute;
    this.#updatedAt = this.#clock();
  }

  /** Takes one call from this instance's own budget, or throws UpstreamBudgetSpentError naming when the next could be made. */
  take(where: string, background: boolean): void {
    const { burst, perMinute } = this.shared.shape;
    const keep = background ? this.shared.reserve : 0;
    const now = this.#clock();
    const perMs = perMinute / 60_000;
    this.#tokens = Math.min(burst, this.#tokens + Math.max(0, now - this.#updatedAt) * perMs);
    this.#updatedAt = now;
    if (this.#tokens - 1 >= keep) {
      this.#tokens -= 1;
      return;
    }
    throw this.spent(where, background, Math.ceil((keep + 1 - this.#tokens) / perMs));
  }

  /** The error of a call the budget (this instance's or the fleet's) has no room for, the next in `waitMs`. */
  spent(where: string, background: boolean, waitMs: number): UpstreamBudgetSpentError {
    return new UpstreamBudgetSpentError(
      `Company lookup service is not called for ${where}: UPSTREAM_MAX_CALLS_PER_MINUTE (${this.shared.shape.perMinute}) is spent${background ? ' for background refreshes' : ''}`,
      waitMs,
    );
  }
}
