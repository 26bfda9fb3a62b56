/**
 * State the instances of one fleet share, as the upstream client sees it. The
 * gateway's Redis room (src/shared-state/) implements it; without REDIS_URL
 * there is none and every instance keeps its own.
 *
 * A shared store helps and is never needed: every method answers within the
 * store's own short deadline and never throws. A store that cannot answer
 * (down, hung, restarting) reads as empty, takes no lock and takes no tokens,
 * and the caller goes on as if it were alone. What is read and decided
 * together is asked in one round trip: a window with the claim on its fetch,
 * a token with the claim on its renewal. The fleet's hold and call budget
 * are asked apart, for each upstream call (`admit`): they are the whole
 * fleet's, where a window is one search's.
 *
 * Ages and waits are judged by the store's one clock, never by an
 * instance's: what an instance writes carries durations (how old, how long),
 * which clocks agree on.
 */
/** What a window's publish tells purges: the tags it is stored under, and where the log of purges was at its claim. */
export interface PublishPurges {
  tags: readonly string[];
  seen: string;
}

export interface SharedStore {
  /** A window with its age, and when it is not fresh, the claim on its fetch (the lock; the call is admitted apart). */
  claimWindow(claim: WindowClaimRequest): Promise<WindowClaim>;
  /**
   * Stores a window for `keepMs`, `ageMs` old, under each of its `tags` (cache-tags.ts), unless a purge of any of
   * them came after the claim its fetch followed (`seen`, that claim's `purges`); releases `lockId`'s lock on
   * it if it still holds it.
   */
  publishWindow(
    key: string,
    value: string,
    ageMs: number,
    keepMs: number,
    lockId: string | undefined,
    purges: PublishPurges,
  ): Promise<void>;
  /**
   * Drops every window stored under `tag`, keeps any window whose fetch was claimed before now from being stored
   * under it later (for `keepMs`, the longest a window is kept), and records the purge in the fleet's log, where
   * the others read it (purgesSince) when told (onPurge) or when they next look. Undefined when the store cannot
   * answer.
   */
  purge(tag: string, keepMs: number): Promise<StorePurge | undefined>;
  /** The purges recorded since `position` (undefined: none, only where the log is now); undefined when the store cannot answer. */
  purgesSince(position: PurgePosition | undefined): Promise<PurgeLogRead | undefined>;
  /** Calls `listener` soon after any instance purges: a hint to read purgesSince at once, which a lost connection may drop. */
  onPurge(listener: () => void): void;
  /** The fleet's token while it needs no renewal, or the claim on its renewal. */
  claimToken(claim: TokenClaimRequest): Promise<TokenClaim>;
  /** Stores a token the upstream has just issued, and releases `lockId`'s renewal lock if it still holds it. */
  publishToken(token: StoredToken, lockId: string | undefined): Promise<void>;
  /** Deletes the fleet's token only while it is still `value` (compare-and-delete): a newer one is kept. */
  dropToken(value: string): Promise<void>;
  /** Holds every instance back from offering refused credentials for `cooldownMs`. */
  refuseCredentials(cooldownMs: number): Promise<void>;
  /** Releases the lock on window `key` if `lockId` still holds it; tried even while the store is taken to be away, so no one waits on it. */
  releaseWindow(key: string, lockId: string): Promise<void>;
  /** Releases the token's renewal lock if `lockId` still holds it; tried even while the store is taken to be away. */
  releaseToken(lockId: string): Promise<void>;
  /** Holds the other instances' upstream calls back for `ms`. */
  hold(by: string, ms: number, rateLimited: boolean): Promise<void>;
  /** The hold and the call budget for one upstream call; undefined when the store cannot answer. */
  admit(admission: CallAdmission): Promise<AdmissionDecision | undefined>;
  /** Takes `count` tokens from the bucket `key`, all or none and only if `keep` are left after. */
  take(key: string, bucket: BucketShape, count: number, keep?: number): Promise<BucketDecision | undefined>;
}

/** Where in the fleet's log of purges an instance is: the log (a new one after Redis lost its data) and the last purge applied. */
export interface PurgePosition {
  log: string;
  sequence: number;
}

export interface StorePurge {
  /** Windows the store dropped. */
  windows: number;
  /** Where this purge sits in the log. */
  position: PurgePosition;
}

/** The tags purged since a position, oldest first, or `gap` when the log no longer holds them all (or is another log). */
export type PurgeLogRead = { position: PurgePosition; tags: string[] } | { position: PurgePosition; gap: true };

/** What decides whether an instance may call the upstream: the others' holds, and the fleet's call budget. */
export interface CallAdmission {
  /** The instance asking: its own holds do not hold it back (it keeps to its own breaker). */
  holder: string;
  /** The longest hold any instance writes: a longer one is not a gateway's, and is ignored. */
  longestHoldMs: number;
  /** The fleet's call budget, if there is one, and how much of it a background refresh must leave. */
  budget?: { key: string; shape: BucketShape; reserve: number } | undefined;
  /** A background refresh: it leaves the budget's reserve. */
  background?: boolean | undefined;
}

export interface WindowClaimRequest {
  key: string;
  /** Identifies this claim's lock: asked again with the same id, a lock a late answer took is found to be this claim's. */
  lockId: string;
  lockMs: number;
  /** The TTL: a window this old or younger is fresh and claims nothing. */
  freshMs: number;
}

/** How a claim went, whatever it claimed. */
export type ClaimOutcome =
  /** This claim holds the lock. */
  | { outcome: 'taken' }
  /** Another instance holds the lock. */
  | { outcome: 'held' }
  /** No answer in time: whether the lock was taken is unknown, and asking again with the same id tells. */
  | { outcome: 'missed' }
  /** The store is taken to be away: nobody can be waited for. */
  | { outcome: 'unavailable' };

export type HeldBack = { outcome: 'held back'; reason: 'rate_limited' | 'circuit_open' | 'budget_spent'; waitMs: number };

/** A window as stored, its age on the store's clock. */
export interface StoredWindow {
  value: string;
  ageMs: number;
}

export type WindowClaim = ({ outcome: 'fresh' } | ClaimOutcome) & {
  stored: StoredWindow | undefined;
  /** Where the fleet's log of purges was when the store answered (opaque): a window fetched since is published with it. */
  purges?: string | undefined;
};

export interface TokenClaimRequest {
  lockId: string;
  lockMs: number;
  /** Tokens not to take: refused by the upstream, or not usable here. */
  skip: readonly string[];
}

/** A token as stored: how long until it needs renewal, and until it expires. */
export interface StoredToken {
  value: string;
  refreshInMs: number;
  expiresInMs: number;
}

export type TokenClaim = { outcome: 'token'; token: StoredToken } | { outcome: 'refused' } | ClaimOutcome;

export type AdmissionDecision = { outcome: 'allowed' } | HeldBack;

/** A token bucket: `burst` tokens at most, refilled at `perMinute`. */
export interface BucketShape {
  burst: number;
  perMinute: number;
}

export type BucketDecision = { allowed: true } | { allowed: false; retryAfterMs: number };
