import { UpstreamBudgetSpentError } from '../../errors/upstream-errors.js';
import type { SharedStore } from '../shared-store.js';
import { systemClock, type Clock } from './clock.js';

/** Background refreshes stop while less than this share of the budget is left, so that requests waiting for data get the rest. */
export const BACKGROUND_RESERVE_SHARE = 0.2;

export interface CallBudgetOptions {
  /** Upstream calls per minute, token calls included: at most this many at once, refilled at this rate. */
  perMinute: number;
  /** The fleet's store: one budget for every instance. Without it, or while it cannot answer, this instance's own. */
  shared?: SharedStore | undefined;
  clock?: Clock | undefined;
}

const BUDGET_KEY = 'upstream:budget';

/**
 * The upstream calls the partner agreement allows, as a token bucket: a call
 * takes one or is not made. Background refreshes give way first: they take
 * one only while more than BACKGROUND_RESERVE_SHARE of the budget is left.
 */
export class CallBudget {
  readonly #shape: { burst: number; perMinute: number };
  readonly #reserve: number;
  readonly #shared: SharedStore | undefined;
  readonly #clock: Clock;
  #tokens: number;
  #updatedAt: number;

  constructor(options: CallBudgetOptions) {
    this.#shape = { burst: options.perMinute, perMinute: options.perMinute };
    this.#reserve = Math.floor(options.perMinute * BACKGROUND_RESERVE_SHARE);
    this.#shared = options.shared;
    this.#clock = options.clock ?? systemClock;
    this.#tokens = options.perMinute;
    this.#updatedAt = this.#clock();
  }

  /** Takes one call from the budget, or throws UpstreamBudgetSpentError naming when the next could be made. */
  async take(where: string, background: boolean): Promise<void> {
    const keep = background ? this.#reserve : 0;
    const shared = this.#shared && (await this.#shared.take(BUDGET_KEY, this.#shape, 1, keep));
    const decision = shared ?? this.#takeLocal(keep);
    if (decision.allowed) return;
    throw new UpstreamBudgetSpentError(
      `Company lookup service is not called for ${where}: UPSTREAM_MAX_CALLS_PER_MINUTE (${this.#shape.perMinute}) is spent${background ? ' for background refreshes' : ''}`,
      decision.retryAfterMs,
    );
  }

  #takeLocal(keep: number): { allowed: true } | { allowed: false; retryAfterMs: number } {
    const now = this.#clock();
    const perMs = this.#shape.perMinute / 60_000;
    this.#tokens = Math.min(this.#shape.burst, this.#tokens + Math.max(0, now - this.#updatedAt) * perMs);
    this.#updatedAt = now;
    if (this.#tokens - 1 >= keep) {
      this.#tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterMs: Math.ceil((keep + 1 - this.#tokens) / perMs) };
  }
}
