import { randomUUID } from 'node:crypto';
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
import { PURGE_LOG_LENGTH, PURGE_SCRIPT, PURGE_SCRIPTS, PURGES_SINCE_SCRIPT } from './purge-scripts.js';
import { failed, MISSED, RedisConnection } from './redis-connection.js';
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

/**
 * What purges keep: each tag's index of the windows stored under it and its purge mark (purge-scripts.ts), the log
 * of purges with its state, and the channel the fleet is told on.
 */
const TAG_INDEX = 'x:';
const TAG_MARK = 'p:';
const PURGE_STATE_KEY = 'purges';
const PURGE_LOG_KEY = 'purges:log';
const PURGE_CHANNEL = 'purges';

/**
 * The fleet's shared state on Redis, each step one script (scripts.ts), so
 * that what is read and decided together costs one round trip; every call is
 * made as redis-connection.ts makes it, under the gateway's own deadline.
 */
export class RedisStore implements SharedStore {
  readonly #redis: RedisConnection;
  readonly #prefix: string;

  private constructor(redis: RedisConnection, keyPrefix: string) {
    this.#redis = redis;
    this.#prefix = keyPrefix;
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
    const budget = claim.admission.budget;
    const reply = await this.#redis.script(
      CLAIM_WINDOW_SCRIPT,
      [key, `${key}:lock`, this.#prefix + HOLD_KEY, this.#prefix + (budget?.key ?? 'upstream:budget'), this.#prefix + PURGE_STATE_KEY],
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
    if (failed(reply)) return { outcome: reply === MISSED ? 'missed' : 'unavailable', stored: undefined };
    if (!Array.isArray(reply)) return { outcome: 'unavailable', stored: undefined };
    const [outcome, value, ageMs, waitMs, rateLimited, purges] = reply as unknown[];
    const stored: StoredWindow | undefined =
      typeof value === 'string' && typeof ageMs === 'number' && ageMs >= 0 ? { value, ageMs } : undefined;
    const seen = typeof purges === 'string' ? { purges } : {};
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
    const tagKeys = tags.flatMap((tag) => [this.#prefix + TAG_INDEX + tag, this.#prefix + TAG_MARK + tag]);
    await this.#redis.script(
      PUBLISH_WINDOW_SCRIPT,
      [stored, `${stored}:lock`, this.#prefix + PURGE_STATE_KEY, ...tagKeys],
      [lockId ?? '', value, String(Math.max(0, Math.round(ageMs))), String(Math.floor(keepMs)), purgesSeen],
      { evenIfAway: lockId !== undefined },
    );
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

  async purge(tag: string, keepMs: number): Promise<StorePurge | undefined> {
    const reply = await this.#redis.script(
      PURGE_SCRIPT,
      [this.#prefix + TAG_INDEX + tag, this.#prefix + TAG_MARK + tag, this.#prefix + PURGE_STATE_KEY, this.#prefix + PURGE_LOG_KEY],
      [tag, String(Math.max(1, Math.ceil(keepMs))), randomUUID(), String(PURGE_LOG_LENGTH), this.#prefix + PURGE_CHANNEL],
      // Whether a purge without an answer happened cannot be told: it is waited for, until Redis is taken to be away.
      { patient: true },
    );
    if (!Array.isArray(reply)) return undefined;
    const [windows, log, sequence] = reply as unknown[];
    if (typeof windows !== 'number' || typeof log !== 'string' || typeof sequence !== 'number') return undefined;
    return { windows, position: { log, sequence } };
  }

  async purgesSince(position: PurgePosition | undefined): Promise<PurgeLogRead | undefined> {
    const reply = await this.#redis.script(
      PURGES_SINCE_SCRIPT,
      [this.#prefix + PURGE_STATE_KEY, this.#prefix + PURGE_LOG_KEY],
      position === undefined ? ['where', '', '0'] : ['since', position.log, String(position.sequence)],
    );
    if (!Array.isArray(reply)) return undefined;
    const [outcome, log, sequence, ...entries] = reply as unknown[];
    if (typeof log !== 'string' || typeof sequence !== 'number') return undefined;
    const now = { log, sequence };
    if (outcome === 'gap') return { position: now, gap: true };
    if (outcome === 'at') return { position: now, tags: [] };
    if (outcome !== 'since') return undefined;
    // Newest first, each `sequence tag`: read back oldest first, and a log not in order (written by hand) is a gap.
    const tags: string[] = [];
    for (const [i, entry] of entries.reverse().entries()) {
      const [entrySequence, tag] = typeof entry === 'string' ? entry.split(' ', 2) : [];
      if (tag === undefined || Number(entrySequence) !== sequence - entries.length + 1 + i) return { position: now, gap: true };
      tags.push(tag);
    }
    return { position: now, tags };
  }

  onPurge(listener: () => void): void {
    this.#redis.subscribe(this.#prefix + PURGE_CHANNEL, listener);
  }

  /** Stops reconnecting and closes the connection; calls still waiting on a hung server are left to their deadlines. */
  async close(): Promise<void> {
    this.#redis.close();
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
