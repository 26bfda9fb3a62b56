import type { Clock } from '../upstream/resilience/clock.js';
import type { UpstreamLog } from '../upstream/log.js';
import type {
  AdmissionDecision,
  BucketDecision,
  BucketShape,
  CallAdmission,
  HeldBack,
  PurgeLogRead,
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
  /** `redis://` or `rediss://` (TLS), user and password in it. */
  url: URL;
  /** Put before every key. */
  keyPrefix: string;
  /** The deadline of every call, held by the gateway itself. */
  commandTimeoutMs: number;
  log: UpstreamLog;
  /** The fleet's one clock as the scripts read it: Redis's own (TIME) unless a test gives its own. */
  clock?: Clock | undefined;
}

/** The keys of what the fleet shares once: its token, with its renewal lock and the refused-credentials flag, and the upstream's hold. */
const TOKEN_KEY = 'token';
const TOKEN_LOCK_KEY = 'token:lock';
const REFUSED_KEY = 'token:refused';
const HOLD_KEY = 'upstream:hold';
/** A window's key as SharedWindows names it (shared-windows.ts storeKey): only such keys are ever dropped by a purge. */
const WINDOW_KEY = /^w:[A-Za-z0-9_-]{1,64}$/;

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
    this.#purges = new RedisPurges(redis, keyPrefix, (key) => key.startsWith(keyPrefix) && WINDOW_KEY.test(key.slice(keyPrefix.length)));
  }

  /** A store on a connection to Redis, once it has connected or failed to (see RedisConnection.open). */
  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    return new RedisStore(await RedisConnection.open({ ...options, scripts: [...ALL_SCRIPTS, ...PURGE_SCRIPTS] }), options.keyPrefix);
  }

  /** Whether calls go to Redis now. */
  get sharing(): boolean {
    return this.#redis.sharing;
  }

  async claimWindow(claim: WindowClaimRequest): Promise<WindowClaim> {
    const key = this.#prefix + claim.key;
    await this.#publishing.get(key);
    // Where purges are, read beside the claim (the fleet's purge keys are not the window's, see purge-scripts.ts) and before any fetch it starts.
    const [reply, purges] = await Promise.all([this.#claim(key, claim), this.#purges.position()]);
    if (failed(reply)) return { outcome: reply === MISSED ? 'missed' : 'unavailable', stored: undefined };
    if (!Array.isArray(reply)) return { outcome: 'unavailable', stored: undefined };
    const [outcome, value, ageMs, waitMs, rateLimited] = reply as unknown[];
    const stored: StoredWindow | undefined =
      typeof value === 'string' && typeof ageMs === 'number' && ageMs >= 0 ? { value, ageMs } : undefined;
    const seen = purges === undefined ? {} : { purges };
    switch (outcome) {
      case 'fresh':
        return stored ? { outcome: 'fresh', stored, ...seen } : { outcome: 'unavailable', stored };
      case 'taken':
      case 'held':
        return { outcome, stored, ...seen };
      case 'hold':
      case 'budget':
        return { ...heldBack(outcome, waitMs, rateLimited), stored, ...seen };
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
    tags: readonly string[],
    purgesSeen: string,
  ): Promise<void> {
    const stored = this.#prefix + key;
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
      [this.#prefix + TOKEN_KEY, this.#prefix + TOKEN_LOCK_KEY, this.#prefix + REFUSED_KEY],
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
      [this.#prefix + TOKEN_KEY, this.#prefix + TOKEN_LOCK_KEY],
      [lockId ?? '', token.value, String(Math.floor(token.refreshInMs)), String(Math.floor(token.expiresInMs))],
      { evenIfAway: lockId !== undefined },
    );
  }

  async dropToken(value: string): Promise<void> {
    await this.#redis.script(DROP_TOKEN_SCRIPT, [this.#prefix + TOKEN_KEY], [value]);
  }

  async refuseCredentials(cooldownMs: number): Promise<void> {
    if (cooldownMs > 0) await this.#redis.command(['SET', this.#prefix + REFUSED_KEY, '1', 'PX', String(Math.ceil(cooldownMs))]);
  }

  async releaseWindow(key: string, lockId: string): Promise<void> {
    await this.#release(`${this.#prefix + key}:lock`, lockId);
  }

  async releaseToken(lockId: string): Promise<void> {
    await this.#release(this.#prefix + TOKEN_LOCK_KEY, lockId);
  }

  async hold(by: string, ms: number, rateLimited: boolean): Promise<void> {
    if (ms > 0) await this.#redis.script(HOLD_SCRIPT, [this.#prefix + HOLD_KEY], [by, String(Math.ceil(ms)), rateLimited ? '1' : '0']);
  }

  async admit(admission: CallAdmission): Promise<AdmissionDecision | undefined> {
    const budget = admission.budget;
    const reply = await this.#redis.script(
      ADMIT_SCRIPT,
      [this.#prefix + HOLD_KEY, this.#prefix + (budget?.key ?? 'upstream:budget')],
      [admission.holder, String(admission.longestHoldMs), ...budgetArguments(budget, admission.background ? (budget?.reserve ?? 0) : 0)],
    );
    if (!Array.isArray(reply)) return undefined;
    const [outcome, waitMs, rateLimited] = reply as unknown[];
    if (outcome === 'ok') return { outcome: 'allowed' };
    if (outcome === 'hold' || outcome === 'budget') return heldBack(outcome, waitMs, rateLimited);
    return undefined;
  }

  async take(key: string, bucket: BucketShape, count: number, keep = 0): Promise<BucketDecision | undefined> {
    const reply = await this.#redis.script(
      BUCKET_SCRIPT,
      [this.#prefix + key],
      [String(bucket.burst), String(bucket.perMinute / 60_000), String(count), String(keep)],
      // A late answer is waited for: asking again would take twice, and deciding alone could let through more than the bucket holds.
      { patient: true },
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
    const budget = claim.admission.budget;
    return this.#redis.script(
      CLAIM_WINDOW_SCRIPT,
      [key, `${key}:lock`, this.#prefix + HOLD_KEY, this.#prefix + (budget?.key ?? 'upstream:budget')],
      [
        claim.lockId,
        String(Math.max(1, Math.ceil(claim.lockMs))),
        String(claim.freshMs),
        String(claim.refreshMs),
        String(MAX_VALUE_BYTES),
        claim.admission.holder,
        String(claim.admission.longestHoldMs),
        ...budgetArguments(budget, budget?.reserve ?? 0),
      ],
    );
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
