/**
 * State the instances of one fleet share, as the upstream client sees it. The
 * gateway's Redis room (src/shared-state/) implements it; without REDIS_URL
 * there is none and every instance keeps its own.
 *
 * A shared store helps and is never needed: every method answers within the
 * store's own short deadline and never throws. A store that cannot answer
 * (down, hung, restarting) reads as empty, takes no lock and takes no tokens,
 * and the caller goes on as if it were alone.
 */
export interface SharedStore {
  /** The value at `key`; undefined when there is none or the store cannot answer. */
  get(key: string): Promise<string | undefined>;
  /** Sets `key` for `ttlMs`; a store that cannot answer forgets it. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Deletes `key` only while it still holds `value` (compare-and-delete). */
  deleteIf(key: string, value: string): Promise<void>;
  /** Takes the lock `key` for `ttlMs` (SET NX PX). */
  lock(key: string, ttlMs: number): Promise<LockAttempt>;
  /** Releases a lock taken with `lock`, only if it is still this one; tried even while the store is taken to be away, so no one waits on it. */
  unlock(lock: HeldLock): Promise<void>;
  /** Whether the lock `key` is held now; undefined when the store cannot answer (nobody can be waited for). */
  locked(key: string): Promise<boolean | undefined>;
  /** Takes `count` tokens from the bucket `key`, all or none and only if `keep` are left after, on the store's own clock. */
  take(key: string, bucket: BucketShape, count: number, keep?: number): Promise<BucketDecision | undefined>;
}

export type LockAttempt =
  | { outcome: 'taken'; lock: HeldLock }
  /** Another instance holds it. */
  | { outcome: 'held' }
  /** The store could not answer: nobody can be waited for. */
  | { outcome: 'unavailable' };

export interface HeldLock {
  key: string;
  id: string;
}

/** A token bucket: `burst` tokens at most, refilled at `perMinute`. */
export interface BucketShape {
  burst: number;
  perMinute: number;
}

export type BucketDecision = { allowed: true } | { allowed: false; retryAfterMs: number };
