import { createClient, ErrorReply } from '@redis/client';
import type { Clock } from '../upstream/resilience/clock.js';
import type { UpstreamLog } from '../upstream/log.js';
import type {
  AdmissionDecision,
  BucketDecision,
  BucketShape,
  CallAdmission,
  HeldBack,
  SharedStore,
  StoredToken,
  StoredWindow,
  TokenClaim,
  TokenClaimRequest,
  WindowClaim,
  WindowClaimRequest,
} from '../upstream/shared-store.js';
import { MAX_ACCESS_TOKEN_LENGTH } from '../upstream/token-response.js';
import { MAX_STORED_WINDOW_LENGTH } from '../upstream/window-codec.js';
import { RedisHealth } from './redis-health.js';
import {
  ADMIT_SCRIPT,
  ALL_SCRIPTS,
  BUCKET_SCRIPT,
  CLAIM_TOKEN_SCRIPT,
  CLAIM_WINDOW_SCRIPT,
  DELETE_IF_SCRIPT,
  DROP_TOKEN_SCRIPT,
  HOLD_SCRIPT,
  type LuaScript,
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

/** Reconnection waits this long after the first failure, doubling ... */
const RECONNECT_BASE_MS = 50;
/** ... up to this, with jitter so that a fleet does not reconnect in step. */
const RECONNECT_MAX_MS = 2_000;

/** Longest a starting gateway waits to learn whether Redis is there. */
const STARTUP_WAIT_MS = 2_000;

/** The keys of what the fleet shares once: its token, with its renewal lock and the refused-credentials flag, and the upstream's hold. */
const TOKEN_KEY = 'token';
const TOKEN_LOCK_KEY = 'token:lock';
const REFUSED_KEY = 'token:refused';
const HOLD_KEY = 'upstream:hold';

/** A call with no answer within its deadline: what it did is unknown. */
const MISSED = Symbol('missed');
/** A call not made (Redis is taken to be away) or failed (refused, connection lost): nothing shared. */
const UNAVAILABLE = Symbol('unavailable');
type Failure = typeof MISSED | typeof UNAVAILABLE;

function failed(reply: unknown): reply is Failure {
  return reply === MISSED || reply === UNAVAILABLE;
}

/** node-redis without its offline queue, reconnecting by itself with jittered backoff. */
function connectionTo(options: RedisStoreOptions) {
  return createClient({
    url: options.url.href,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: Math.max(options.commandTimeoutMs * 10, 1_000),
      reconnectStrategy: (retries: number) => {
        const ceiling = Math.min(RECONNECT_BASE_MS * 2 ** Math.min(retries, 16), RECONNECT_MAX_MS);
        return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
      },
    },
  });
}

type Client = ReturnType<typeof connectionTo>;

/**
 * The fleet's shared state on Redis (node-redis), each step one script, so
 * that what is read and decided together costs one round trip. Every call
 * runs under the gateway's own deadline: node-redis's command timeout does
 * not fire once a command is written to a hung server. Without the offline
 * queue a call made while Redis is away fails at once; while it is away, no
 * call is made at all (see RedisHealth), and the client reconnects by itself
 * with backoff.
 */
export class RedisStore implements SharedStore {
  readonly #client: Client;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #health: RedisHealth;
  readonly #log: UpstreamLog;
  readonly #clock: Clock | undefined;
  /** Reply errors (a missing permission, a script refused) logged once each: one misconfiguration is one line. */
  readonly #reportedReplies = new Set<string>();

  private constructor(client: Client, options: RedisStoreOptions) {
    this.#client = client;
    this.#prefix = options.keyPrefix;
    this.#timeoutMs = options.commandTimeoutMs;
    this.#log = options.log;
    this.#clock = options.clock;
    this.#health = new RedisHealth({
      log: options.log,
      commandTimeoutMs: options.commandTimeoutMs,
      ping: () => this.#call(['PING']).then((reply) => !failed(reply)),
      ready: () => client.isReady,
    });
  }

  /**
   * A store connecting to Redis, once it has connected or failed to (at most
   * STARTUP_WAIT_MS): the first requests share if Redis is there, and a
   * gateway starts whether it is or not. Until Redis answers, every call reads
   * as nothing shared.
   */
  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    const client = connectionTo(options);
    const store = new RedisStore(client, options);
    let resolve = () => {};
    const settled = new Promise<void>((settle) => (resolve = settle));
    client.on('ready', () => {
      // Loaded on every connection (a restarted Redis has forgotten them): EVALSHA then finds them, in one round trip.
      void store.#loadScripts().then(() => {
        store.#health.up();
        resolve();
      });
    });
    // Without a listener node-redis's errors would crash the process; the message names no password.
    client.on('error', (error: unknown) => {
      store.#health.down(error);
      resolve();
    });
    // connect() retries by itself until Redis answers; close() ends it.
    client.connect().catch((error: unknown) => store.#health.down(error));
    const timer = setTimeout(resolve, STARTUP_WAIT_MS);
    await settled;
    clearTimeout(timer);
    return store;
  }

  /** Whether calls go to Redis now. */
  get sharing(): boolean {
    return this.#health.sharing;
  }

  async claimWindow(claim: WindowClaimRequest): Promise<WindowClaim> {
    const key = this.#prefix + claim.key;
    const budget = claim.admission.budget;
    const reply = await this.#script(
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
    if (failed(reply)) return { outcome: reply === MISSED ? 'missed' : 'unavailable', stored: undefined };
    if (!Array.isArray(reply)) return { outcome: 'unavailable', stored: undefined };
    const [outcome, value, ageMs, waitMs, rateLimited] = reply as unknown[];
    const stored: StoredWindow | undefined =
      typeof value === 'string' && typeof ageMs === 'number' && ageMs >= 0 ? { value, ageMs } : undefined;
    switch (outcome) {
      case 'fresh':
        return stored ? { outcome: 'fresh', stored } : { outcome: 'unavailable', stored };
      case 'taken':
      case 'held':
        return { outcome, stored };
      case 'hold':
      case 'budget':
        return { ...heldBack(outcome, waitMs, rateLimited), stored };
      default:
        return { outcome: 'unavailable', stored };
    }
  }

  async publishWindow(key: string, value: string, ageMs: number, keepMs: number, lockId: string | undefined): Promise<void> {
    const stored = this.#prefix + key;
    await this.#script(
      PUBLISH_WINDOW_SCRIPT,
      [stored, `${stored}:lock`],
      [lockId ?? '', value, String(Math.max(0, Math.round(ageMs))), String(Math.floor(keepMs))],
      { evenIfAway: lockId !== undefined },
    );
  }

  async claimToken(claim: TokenClaimRequest): Promise<TokenClaim> {
    const reply = await this.#script(
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
    await this.#script(
      PUBLISH_TOKEN_SCRIPT,
      [this.#prefix + TOKEN_KEY, this.#prefix + TOKEN_LOCK_KEY],
      [lockId ?? '', token.value, String(Math.floor(token.refreshInMs)), String(Math.floor(token.expiresInMs))],
      { evenIfAway: lockId !== undefined },
    );
  }

  async dropToken(value: string): Promise<void> {
    await this.#script(DROP_TOKEN_SCRIPT, [this.#prefix + TOKEN_KEY], [value]);
  }

  async refuseCredentials(cooldownMs: number): Promise<void> {
    if (cooldownMs > 0) await this.#shared(['SET', this.#prefix + REFUSED_KEY, '1', 'PX', String(Math.ceil(cooldownMs))]);
  }

  async releaseWindow(key: string, lockId: string): Promise<void> {
    await this.#release(`${this.#prefix + key}:lock`, lockId);
  }

  async releaseToken(lockId: string): Promise<void> {
    await this.#release(this.#prefix + TOKEN_LOCK_KEY, lockId);
  }

  async hold(by: string, ms: number, rateLimited: boolean): Promise<void> {
    if (ms > 0) await this.#script(HOLD_SCRIPT, [this.#prefix + HOLD_KEY], [by, String(Math.ceil(ms)), rateLimited ? '1' : '0']);
  }

  async admit(admission: CallAdmission): Promise<AdmissionDecision | undefined> {
    const budget = admission.budget;
    const reply = await this.#script(
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
    const reply = await this.#script(
      BUCKET_SCRIPT,
      [this.#prefix + key],
      [String(bucket.burst), String(bucket.perMinute / 60_000), String(count), String(keep)],
      // A late answer is waited for: asking again would take twice, and deciding alone could let through more than the bucket holds.
      { patient: true },
    );
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') return undefined;
    return reply[0] === 1 ? { allowed: true } : { allowed: false, retryAfterMs: reply[1] };
  }

  /** Stops reconnecting and closes the connection; calls still waiting on a hung server are left to their deadlines. */
  async close(): Promise<void> {
    this.#health.stop();
    this.#client.destroy();
  }

  async #release(lockKey: string, lockId: string): Promise<void> {
    // Others wait for this lock: it is released even if Redis has just been taken to be away.
    await this.#script(DELETE_IF_SCRIPT, [lockKey], [lockId], { evenIfAway: true });
  }

  async #loadScripts(): Promise<void> {
    // Pipelined: one round trip for all. A failure leaves EVALSHA to fall back on EVAL.
    await Promise.all(ALL_SCRIPTS.map((script) => this.#call(['SCRIPT', 'LOAD', script.source])));
  }

  /** A call made only while Redis is taken to be up. */
  #shared(args: string[], how: CallOptions & { expected?: string | undefined } = {}): Promise<unknown> {
    if (!this.#health.sharing) return Promise.resolve(UNAVAILABLE);
    return this.#call(args, how);
  }

  /**
   * A script by its digest, its first argument the time (empty: Redis's own), sent whole the first time a server has
   * not seen it (one flushed, or restarted since the scripts were loaded).
   */
  async #script(script: LuaScript, keys: string[], args: string[], how: CallOptions = {}): Promise<unknown> {
    const now = this.#clock ? String(Math.floor(this.#clock())) : '';
    const tail = [String(keys.length), ...keys, now, ...args];
    const send = (command: string[], expected?: string) =>
      how.evenIfAway && this.#client.isReady ? this.#call(command, { ...how, expected }) : this.#shared(command, { ...how, expected });
    const reply = await send(['EVALSHA', script.sha1, ...tail], 'NOSCRIPT');
    return reply === NO_SCRIPT ? send(['EVAL', script.source, ...tail]) : reply;
  }

  /**
   * One command under the deadline: an answer, MISSED when none came in time, UNAVAILABLE when it failed. A patient
   * call, whose late answer must not be taken for none (a decision that cannot be asked twice), waits on past its
   * deadline, each one more miss in evidence, until it is answered or Redis is taken to be away.
   */
  #call(args: string[], how: CallOptions & { expected?: string | undefined } = {}): Promise<unknown> {
    return new Promise((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const sentAt = performance.now();
      const wait = () => {
        timer = setTimeout(
          // After the event loop's poll phase: on a loop running late the answer may be waiting, unread, on the socket.
          () =>
            setImmediate(() => {
              if (settled) return;
              this.#health.missed(sentAt);
              if (how.patient && this.#health.sharing) return wait();
              settled = true;
              resolve(how.patient ? UNAVAILABLE : MISSED);
            }),
          this.#timeoutMs,
        );
      };
      wait();
      this.#client.sendCommand(args).then(
        (reply) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          this.#health.answered();
          resolve(reply);
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(this.#failed(error, args[0] ?? '', how.expected));
        },
      );
    });
  }

  #failed(error: unknown, command: string, expected: string | undefined): typeof UNAVAILABLE | typeof NO_SCRIPT {
    if (!(error instanceof ErrorReply)) {
      // The connection failed: a fact, not a late answer.
      this.#health.down(error);
      return UNAVAILABLE;
    }
    // Redis answered: it is up, and refused this one command.
    this.#health.answered();
    if (expected !== undefined && error.message.startsWith(expected)) return NO_SCRIPT;
    const what = `${command} ${error.message.split(' ')[0]}`;
    if (!this.#reportedReplies.has(what)) {
      this.#reportedReplies.add(what);
      this.#log.warn({ command, reply: error.message.slice(0, 200) }, 'Redis refused a command; going on without sharing it');
    }
    return UNAVAILABLE;
  }
}

const NO_SCRIPT = Symbol('no script');

interface CallOptions {
  /** Made even while Redis is taken to be away (a lock released, so that nobody waits on it), as long as the client is connected. */
  evenIfAway?: boolean | undefined;
  /** Waits past the deadline for the answer, until Redis is taken to be away (see #call). */
  patient?: boolean | undefined;
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
