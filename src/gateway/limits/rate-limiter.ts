import { LRUCache } from 'lru-cache';

export interface RateLimitSettings {
  /** Sustained requests per minute per client; 0 turns rate limiting off. */
  perMinute: number;
  /** Requests a client may make at once before the sustained rate applies. */
  burst: number;
  /** Clients tracked at most; the least recently seen are forgotten first. */
  maxClients: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * A token bucket per client key, held in an LRU so memory stays bounded
 * whatever the number of clients. A forgotten client starts again with a full
 * bucket, which is what it would have after waiting that long anyway.
 */
export class RateLimiter {
  private readonly perMs: number;
  private readonly buckets: LRUCache<string, Bucket>;

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.perMs = settings.perMinute / 60_000;
    this.buckets = new LRUCache({ max: settings.maxClients });
  }

  /** Takes `count` requests (the operations of a batch) from the client's bucket, all or none; at most `burst`. */
  take(clientKey: string, count = 1): RateDecision {
    const now = this.now();
    let bucket = this.buckets.get(clientKey);
    if (bucket === undefined) {
      bucket = { tokens: this.settings.burst, updatedAt: now };
      this.buckets.set(clientKey, bucket);
    }
    bucket.tokens = Math.min(this.settings.burst, bucket.tokens + (now - bucket.updatedAt) * this.perMs);
    bucket.updatedAt = now;
    if (bucket.tokens >= count) {
      bucket.tokens -= count;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((count - bucket.tokens) / this.perMs / 1_000)) };
  }

  /** Most requests a client may make at once. */
  get burst(): number {
    return this.settings.burst;
  }

  /** How many clients are tracked now. */
  get size(): number {
    return this.buckets.size;
  }
}
