import { createHash } from 'node:crypto';
import type { SharedStore } from '../../upstream/shared-store.js';
import { type RateDecision, RateLimiter, type RateLimitSettings } from './rate-limiter.js';

/** What the request handler takes a client's requests from: this instance's buckets, or the fleet's. */
export interface ClientRateLimit {
  /** Most requests a client may make at once. */
  readonly burst: number;
  /** Takes `count` requests from the client's bucket, all or none. */
  take(clientKey: string, count?: number): RateDecision | Promise<RateDecision>;
}

/**
 * The rate limit the settings set, none where RATE_LIMIT_PER_MINUTE is 0: in
 * a fleet, one bucket per client for all instances, this instance's own
 * buckets standing in while the store is away. `now`: the buckets' clock.
 */
export function clientRateLimitFor(
  settings: RateLimitSettings,
  shared: SharedStore | undefined,
  now?: () => number,
): ClientRateLimit | undefined {
  if (settings.perMinute === 0) return undefined;
  const local = new RateLimiter(settings, now);
  return shared ? new SharedRateLimiter(local, shared, settings.perMinute) : local;
}

/**
 * One bucket per client for the whole fleet, with the same burst, rate and
 * all-or-none batches as this instance's, taken atomically in the store on
 * its own clock. When the store cannot answer in time (away, refusing, or
 * late: a request never waits on Redis past its deadline, cache hit or not),
 * this instance's own buckets decide, as they would without a fleet. They
 * count every request, whoever decides, so that a client already over its
 * rate when Redis goes away does not find a full bucket here.
 */
export class SharedRateLimiter implements ClientRateLimit {
  readonly #local: RateLimiter;
  readonly #store: SharedStore;
  readonly #shape: { burst: number; perMinute: number };

  constructor(local: RateLimiter, store: SharedStore, perMinute: number) {
    this.#local = local;
    this.#store = store;
    this.#shape = { burst: local.burst, perMinute };
  }

  get burst(): number {
    return this.#local.burst;
  }

  async take(clientKey: string, count = 1): Promise<RateDecision> {
    // A digest: keys of bounded length whatever the client key (a token subject may be long).
    const key = `rl:${createHash('sha256').update(clientKey).digest('base64url')}`;
    const alone = this.#local.take(clientKey, count);
    const decision = await this.#store.take(key, this.#shape, count);
    if (decision === undefined) return alone;
    if (decision.allowed) return decision;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1_000)) };
  }
}
