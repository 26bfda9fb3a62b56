import type { Alarm, Clock } from '../upstream/resilience/clock.js';
import type { UpstreamLog } from '../upstream/log.js';
import type {
  AdmissionDecision,
  BucketDecision,
  BucketShape,
  CallAdmission,
  HeldBack,
  PurgeLogRead,
  PublishPurges,
  PurgePosition,
  SharedStore,
  StorePurge,
  StoredToken,
  StoredWindow,
  TokenClaim,
  TokenClaimRequest,
  WindowClaim,
  WindowClaimRequest,
} from '../upstream/shared-store.js';
import { MAX_ACCESS_TOKEN_LENGTH } from '../upstream/token-response.js';
import { MAX_STORED_WINDOW_LENGTH } from '../upstream/window-codec.js';
import { PURGE_SCRIPTS } from './purge-scripts.js';
import { failed, MISSED, RedisConnection } from './redis-connection.js';
import { RedisPurges } from './redis-purges.js';
import type { SharingState } from './redis-health.js';
import type { RedisTarget } from './redis-target.js';
import {
  ADMIT_SCRIPT,
  ALL_SCRIPTS,
  BUCKET_SCRIPT,
  CLAIM_TOKEN_SCRIPT,
  CLAIM_WINDOW_SCRIPT,
  DELETE_IF_SCRIPT,
  DROP_TOKEN_SCRIPT,
  HOLD_SCRIPT,
  PUBLISH_TOKEN_SCRIPT,
  PUBLISH_WINDOW_SCRIPT,
} from './scripts.js';

/**
 * Longest value read back, in bytes: the longest the gateway writes is a window, at most MAX_STORED_WINDOW_LENGTH
 * UTF-16 units, each at most 3 bytes of UTF-8. A longer value is not one a gateway wrote: the scripts leave it unread.
 */
export const MAX_VALUE_BYTES = 3 * MAX_STORED_WINDOW_LENGTH;

export interface RedisStoreOptions {
  /** One node, a cluster or a master's sentinels, as REDIS_URL names them. */
  target: RedisTarget;
  /** With a sentinel target, the sentinels' own password. */
  sentinelPassword?: string | undefined;
  /** Put before every key. */
  keyPrefix: string;
  /** The deadline of every call, held by the gateway itself. */
  commandTimeoutMs: number;
  log: UpstreamLog;
  /** The fleet's one clock as the scripts read it: Redis's own (TIME) unless a test gives its own. */
  clock?: Clock | undefined;
  /** What rings each call's deadline; tests ring it when they choose. */
  alarm?: Alarm | undefined;
}

/**
 * The keys of what the fleet shares once: its token, with its renewal lock and the refused-credentials flag, the
 * upstream's hold and the call budget's bucket (named by the budget), each under FLEET_TAG.
 */
const TOKEN_KEY = 'token';
const TOKEN_LOCK_KEY = 'token:lock';
const REFUSED_KEY = 'token:refused';
const HOLD_KEY = 'upstream:hold';
/** What CHECK_SCRIPT writes, and deletes, to learn whether Redis serves the gateway. */
const CHECK_KEY = 'check';

/**
 * Keys are `PREFIX{TAG}NAME`: Redis Cluster hashes only the tag, so every key
 * one script touches shares a tag (a cluster runs no script across hash
 * slots), and keys that are never touched together get tags of their own, so
 * that a cluster spreads them over its masters. The fleet-wide keys (token,
 * hold, budget) share this one tag; each search window (with its lock and
 * its purge tombstone) and each client's rate-limit bucket is tagged by its
 * own name; the purges' keys share PURGES_TAG (redis-purges.ts). The prefix
 * comes first, so that an ACL key pattern (`~csg:*`) still covers every key.
 */
const FLEET_TAG = '{fleet}';
/** Every key of the fleet's purges (state, log, each tag's index and mark) and their channel: one slot, as each purge script reads several. */
const PURGES_TAG = '{purges}';
/** A window's key after the prefix, as #own names SharedWindows' keys (shared-windows.ts storeKey): only such keys are ever dropped by a purge. */
const WINDOW_KEY = /^\{w:[A-Za-z0-9_-]{1,64}\}$/;

/**
 * The fleet's shared state on Redis, each step one script (scripts.ts), so
 * that what is read and decided together costs one round trip; every call is
 * made as redis-connection.ts makes it, under the gateway's own deadline.
 */
export class RedisStore implements SharedStore {
  readonly #redis: RedisConnection;
  readonly #prefix: string;
  readonly #purges: RedisPurges;
  /** This instance's publishes under way, by window key: a claim of the same window waits for its publish, as it did when a publish was one script. */
  readonly #publishing = new Map<string, Promise<unknown>>();

  private constructor(redis: RedisConnection, keyPrefix: string) {
    this.#redis = redis;
    this.#prefix = keyPrefix;
    this.#purges = new RedisPurges(
      redis,
      `${keyPrefix}${PURGES_TAG}`,
      (key) => key.startsWith(keyPrefix) && WINDOW_KEY.test(key.slice(keyPrefix.length)),
    );
  }

  /** A store on a connection to Redis, once it has been found to serve or not (see RedisConnection.open). */
  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    const fleetKey = `${options.keyPrefix}${FLEET_TAG}${CHECK_KEY}`;
    // Alone, a second key in a slot of its own: one node of a cluster, named as if alone, refuses the check (CROSSSLOT).
    const checkKeys = options.target.topology === 'single' ? [fleetKey, `${options.keyPrefix}{${CHECK_KEY}}`] : [fleetKey];
    const connection = await RedisConnection.open({ ...options, scripts: [...ALL_SCRIPTS, ...PURGE_SCRIPTS], checkKeys });
    return new RedisStore(connection, options.keyPrefix);
  }

  /** Whether calls go to Redis now. */
  get sharing(): boolean {
    return this.#redis.sharing;
  }

  /** Whether this instance shares now, and if not, why. */
  get state(): SharingState {
    return this.#redis.state;
  }

  /** Resolves once Redis has first served the gateway or refused it, or after at most STARTUP_WAIT_MS. */
  known(): Promise<void> {
    return this.#redis.known();
  }

  async claimWindow(claim: WindowClaimRequest): Promise<WindowClaim> {
    const key = this.#own(claim.key);
    await this.#publishing.get(key);
    // Where purges are, read beside the claim (the fleet's purge keys are not the window's, see purge-scripts.ts) and before any fetch it starts.
    const [reply, purges] = await Promise.all([this.#claim(key, claim), this.#purges.position()]);
    if (failed(reply)) return { outcome: reply === MISSED ? 'missed' : 'unavailable', stored: undefined };
    if (!Array.isArray(reply)) return { outcome: 'unavailable', stored: undefined };
    const [outcome, value, ageMs] = reply as unknown[];
    const stored: StoredWindow | undefined =
      typeof value === 'string' && typeof ageMs === 'number' && ageMs >= 0 ? { value, ageMs } : undefined;
    const seen = purges === undefined ? {} : { purges };
    switch (outcome) {
      case 'fresh':
        return stored ? { outcome: 'fresh', stored, ...seen } : { outcome: 'unavailable', stored };
      case 'taken':
      case 'held':
        return { outcome, stored, ...seen };
      default:
        return { outcome: 'unavailable', stored };
    }
  }

  async publishWindow(
    key: string,
    value: string,
    ageMs: number,
    keepMs: number,
    lockId: string | undefined,
    { tags, seen: purgesSeen }: PublishPurges,
  ): Promise<void> {
    const stored = this.#own(key);
    const publishing = (async () => {
      // Indexed under its tags first, so that a purge from now on finds it; not indexed (purged since, or Redis away), only its lock is let go.
      const indexed = keepMs > 0 && (await this.#purges.register(stored, tags, keepMs, purgesSeen));
      await this.#redis.script(
        PUBLISH_WINDOW_SCRIPT,
        [stored, `${stored}:lock`, RedisPurges.tombstoneOf(stored)],
        [lockId ?? '', value, String(Math.max(0, Math.round(ageMs))), String(Math.floor(keepMs)), indexed ? purgesSeen : ''],
        { evenIfAway: lockId !== undefined },
      );
    })();
    this.#publishing.set(stored, publishing);
    try {
      await publishing;
    } finally {
      if (this.#publishing.get(stored) === publishing) this.#publishing.delete(stored);
    }
  }

  async claimToken(claim: TokenClaimRequest): Promise<TokenClaim> {
    const reply = await this.#redis.script(
      CLAIM_TOKEN_SCRIPT,
      [this.#fleet(TOKEN_KEY), this.#fleet(TOKEN_LOCK_KEY), this.#fleet(REFUSED_KEY)],
      [claim.lockId, String(Math.max(1, Math.ceil(claim.lockMs))), String(MAX_ACCESS_TOKEN_LENGTH), ...claim.skip],
    );
    if (failed(reply)) return { outcome: reply === MISSED ? 'missed' : 'unavailable' };
    if (!Array.isArray(reply)) return { outcome: 'unavailable' };
    const [outcome, value, refreshInMs, expiresInMs] = reply as unknown[];
    if (outcome === 'token' && typeof value === 'string' && typeof refreshInMs === 'number' && typeof expiresInMs === 'number') {
      return { outcome, token: { value, refreshInMs, expiresInMs } };
    }
    if (outcome === 'refused' || outcome === 'taken' || outcome === 'held') return { outcome };
    return { outcome: 'unavailable' };
  }

  async publishToken(token: StoredToken, lockId: string | undefined): Promise<void> {
    await this.#redis.script(
      PUBLISH_TOKEN_SCRIPT,
      [this.#fleet(TOKEN_KEY), this.#fleet(TOKEN_LOCK_KEY)],
      [lockId ?? '', token.value, String(Math.floor(token.refreshInMs)), String(Math.floor(token.expiresInMs))],
      { evenIfAway: lockId !== undefined },
    );
  }

  async dropToken(value: string): Promise<void> {
    await this.#redis.script(DROP_TOKEN_SCRIPT, [this.#fleet(TOKEN_KEY)], [value]);
  }

  async refuseCredentials(cooldownMs: number): Promise<void> {
    const key = this.#fleet(REFUSED_KEY);
    if (cooldownMs > 0) await this.#redis.command(['SET', key, '1', 'PX', String(Math.ceil(cooldownMs))], key);
  }

  async releaseWindow(key: string, lockId: string): Promise<void> {
    await this.#release(`${this.#own(key)}:lock`, lockId);
  }

  async releaseToken(lockId: string): Promise<void> {
    await this.#release(this.#fleet(TOKEN_LOCK_KEY), lockId);
  }

  async hold(by: string, ms: number, rateLimited: boolean): Promise<void> {
    if (ms > 0) await this.#redis.script(HOLD_SCRIPT, [this.#fleet(HOLD_KEY)], [by, String(Math.ceil(ms)), rateLimited ? '1' : '0']);
  }

  async admit(admission: CallAdmission): Promise<AdmissionDecision | undefined> {
    const budget = admission.budget;
    const reply = await this.#redis.script(
      ADMIT_SCRIPT,
      [this.#fleet(HOLD_KEY), this.#fleet(budget?.key ?? 'upstream:budget')],
      [admission.holder, String(admission.longestHoldMs), ...budgetArguments(budget, admission.background ? (budget?.reserve ?? 0) : 0)],
    );
    if (!Array.isArray(reply)) return undefined;
    const [outcome, waitMs, rateLimited] = reply as unknown[];
    if (outcome === 'ok') return { outcome: 'allowed' };
    if (outcome === 'hold' || outcome === 'budget') return heldBack(outcome, waitMs, rateLimited);
    return undefined;
  }

  async take(key: string, bucket: BucketShape, count: number, keep = 0): Promise<BucketDecision | undefined> {
    // Not asked again when late: that would take twice. The caller decides alone instead, as while Redis is away.
    const reply = await this.#redis.script(
      BUCKET_SCRIPT,
      [this.#own(key)],
      [String(bucket.burst), String(bucket.perMinute / 60_000), String(count), String(keep)],
    );
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') return undefined;
    return reply[0] === 1 ? { allowed: true } : { allowed: false, retryAfterMs: reply[1] };
  }

  purge(tag: string, keepMs: number): Promise<StorePurge | undefined> {
    return this.#purges.purge(tag, keepMs);
  }

  purgesSince(position: PurgePosition | undefined): Promise<PurgeLogRead | undefined> {
    return this.#purges.since(position);
  }

  onPurge(listener: () => void): void {
    this.#purges.onPurge(listener);
  }

  /** Stops reconnecting and closes the connection; calls still waiting on a hung server are left to their deadlines. */
  async close(): Promise<void> {
    this.#redis.close();
  }

  #claim(key: string, claim: WindowClaimRequest): Promise<unknown> {
    return this.#redis.script(
      CLAIM_WINDOW_SCRIPT,
      [key, `${key}:lock`],
      [claim.lockId, String(Math.max(1, Math.ceil(claim.lockMs))), String(claim.freshMs), String(MAX_VALUE_BYTES)],
    );
  }

  /** A key of the whole fleet's, in the fleet's hash slot. */
  #fleet(name: string): string {
    return `${this.#prefix}${FLEET_TAG}${name}`;
  }

  /** A key in a hash slot of its own (a window, a client's bucket): a cluster spreads them over its masters. */
  #own(key: string): string {
    return `${this.#prefix}{${key}}`;
  }

  async #release(lockKey: string, lockId: string): Promise<void> {
    // Others wait for this lock: it is released even if Redis has just been taken to be away.
    await this.#redis.script(DELETE_IF_SCRIPT, [lockKey], [lockId], { evenIfAway: true });
  }
}

/** The budget's part of a script's arguments: whether there is one, its burst, tokens per ms, and the reserve to leave. */
function budgetArguments(budget: CallAdmission['budget'], reserve: number): string[] {
  if (budget === undefined) return ['0', '0', '0', '0'];
  return ['1', String(budget.shape.burst), String(budget.shape.perMinute / 60_000), String(reserve)];
}

function heldBack(outcome: 'hold' | 'budget', waitMs: unknown, rateLimited: unknown): HeldBack {
  const wait = typeof waitMs === 'number' && waitMs > 0 ? waitMs : 1;
  if (outcome === 'budget') return { outcome: 'held back', reason: 'budget_spent', waitMs: wait };
  return { outcome: 'held back', reason: rateLimited === 1 ? 'rate_limited' : 'circuit_open', waitMs: wait };
}
