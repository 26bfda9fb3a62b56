import { randomUUID } from 'node:crypto';
import { createClient, ErrorReply } from '@redis/client';
import type { UpstreamLog } from '../upstream/log.js';
import type { BucketDecision, BucketShape, HeldLock, LockAttempt, SharedStore } from '../upstream/shared-store.js';
import { MAX_STORED_WINDOW_LENGTH } from '../upstream/window-codec.js';
import { RedisHealth } from './redis-health.js';
import { BUCKET_SCRIPT, DELETE_IF_SCRIPT, type LuaScript } from './scripts.js';

/**
 * Longest value read back, in bytes: the longest the gateway writes is a window, at most MAX_STORED_WINDOW_LENGTH
 * UTF-16 units, each at most 3 bytes of UTF-8.
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
}

/** Reconnection waits this long after the first failure, doubling ... */
const RECONNECT_BASE_MS = 50;
/** ... up to this, with jitter so that a fleet does not reconnect in step. */
const RECONNECT_MAX_MS = 2_000;

/** Longest a starting gateway waits to learn whether Redis is there. */
const STARTUP_WAIT_MS = 2_000;

/** What a failed or late call reads as: nothing shared. */
const FAILED = Symbol('failed');

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
 * The fleet's shared state on Redis (node-redis). Every call runs under the
 * gateway's own deadline: node-redis's command timeout does not fire once a
 * command is written to a hung server. Without the offline queue a call made
 * while Redis is away fails at once; while it is away, no call is made at all
 * (see RedisHealth), and the client reconnects by itself with backoff.
 */
export class RedisStore implements SharedStore {
  readonly #client: Client;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #health: RedisHealth;
  readonly #log: UpstreamLog;
  /** When Redis last answered anything (performance.now()). */
  #lastReplyAt = 0;
  /** Reply errors (a missing permission, a script refused) logged once each: one misconfiguration is one line. */
  readonly #reportedReplies = new Set<string>();

  private constructor(client: Client, options: RedisStoreOptions) {
    this.#client = client;
    this.#prefix = options.keyPrefix;
    this.#timeoutMs = options.commandTimeoutMs;
    this.#log = options.log;
    this.#health = new RedisHealth({
      log: options.log,
      ping: () => this.#call(['PING']).then((reply) => reply !== FAILED),
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
      store.#health.up();
      resolve();
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

  /** At most MAX_VALUE_BYTES are read: a longer value is not one the gateway wrote, and reads as none. */
  async get(key: string): Promise<string | undefined> {
    // GETRANGE, not GET: a value planted in Redis is never read whole. It answers "" for a missing key, and no value
    // the gateway writes is empty.
    const reply = await this.#shared(['GETRANGE', this.#prefix + key, '0', String(MAX_VALUE_BYTES)]);
    return typeof reply === 'string' && reply.length > 0 && Buffer.byteLength(reply) <= MAX_VALUE_BYTES ? reply : undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#shared(['SET', this.#prefix + key, value, 'PX', String(Math.max(1, Math.ceil(ttlMs)))]);
  }

  async deleteIf(key: string, value: string): Promise<void> {
    await this.#script(DELETE_IF_SCRIPT, [this.#prefix + key], [value]);
  }

  async lock(key: string, ttlMs: number): Promise<LockAttempt> {
    const id = randomUUID();
    const reply = await this.#shared(['SET', this.#prefix + key, id, 'NX', 'PX', String(Math.max(1, Math.ceil(ttlMs)))]);
    if (reply === FAILED) return { outcome: 'unavailable' };
    return reply === 'OK' ? { outcome: 'taken', lock: { key, id } } : { outcome: 'held' };
  }

  async unlock(lock: HeldLock): Promise<void> {
    // Others wait for this lock: it is released even if a late answer has just made Redis look away.
    await this.#script(DELETE_IF_SCRIPT, [this.#prefix + lock.key], [lock.id], true);
  }

  async locked(key: string): Promise<boolean | undefined> {
    const reply = await this.#shared(['EXISTS', this.#prefix + key]);
    return reply === FAILED ? undefined : reply === 1;
  }

  async take(key: string, bucket: BucketShape, count: number, keep = 0): Promise<BucketDecision | undefined> {
    const reply = await this.#script(
      BUCKET_SCRIPT,
      [this.#prefix + key],
      [String(bucket.burst), String(bucket.perMinute / 60_000), String(count), String(keep)],
    );
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') return undefined;
    return reply[0] === 1 ? { allowed: true } : { allowed: false, retryAfterMs: reply[1] };
  }

  /** Stops reconnecting and closes the connection; calls still waiting on a hung server are left to their deadlines. */
  async close(): Promise<void> {
    this.#health.stop();
    this.#client.destroy();
  }

  /** A call made only while Redis is taken to be up. */
  #shared(args: string[], ...expected: string[]): Promise<unknown> {
    if (!this.#health.sharing) return Promise.resolve(FAILED);
    return this.#call(args, ...expected);
  }

  /** A script by its digest, sent whole the first time a server has not seen it (a restarted Redis has forgotten them all). */
  async #script(script: LuaScript, keys: string[], args: string[], evenIfAway = false): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    const send = (command: string[], ...expected: string[]) =>
      evenIfAway && this.#client.isReady ? this.#call(command, ...expected) : this.#shared(command, ...expected);
    const reply = await send(['EVALSHA', script.sha1, ...tail], 'NOSCRIPT');
    return reply === NO_SCRIPT ? send(['EVAL', script.source, ...tail]) : reply;
  }

  /** One command under the deadline: any failure, or no answer in time, is FAILED, and a failure of Redis itself marks it down. */
  #call(args: string[], ...expected: string[]): Promise<unknown> {
    return new Promise((resolve) => {
      let settled = false;
      const sentAt = performance.now();
      const timer = setTimeout(
        // After the event loop's poll phase: on a loop running late the answer may be waiting, unread, on the socket.
        () =>
          setImmediate(() => {
            if (settled) return;
            settled = true;
            // Redis answering other calls since is up, and this process is running late: this call alone is a miss.
            if (this.#lastReplyAt < sentAt) this.#health.down(new Error(`Redis gave no answer to ${args[0]} within ${this.#timeoutMs} ms`));
            resolve(FAILED);
          }),
        this.#timeoutMs,
      );
      this.#client.sendCommand(args).then(
        (reply) => {
          this.#lastReplyAt = performance.now();
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(reply);
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(this.#failed(error, args[0] ?? '', expected));
        },
      );
    });
  }

  #failed(error: unknown, command: string, expected: string[]): typeof FAILED | typeof NO_SCRIPT {
    if (!(error instanceof ErrorReply)) {
      this.#health.down(error);
      return FAILED;
    }
    this.#lastReplyAt = performance.now();
    // Redis answered: it is up, and refused this one command.
    if (expected.some((prefix) => error.message.startsWith(prefix))) return NO_SCRIPT;
    const what = `${command} ${error.message.split(' ')[0]}`;
    if (!this.#reportedReplies.has(what)) {
      this.#reportedReplies.add(what);
      this.#log.warn({ command, reply: error.message.slice(0, 200) }, 'Redis refused a command; going on without sharing it');
    }
    return FAILED;
  }
}

const NO_SCRIPT = Symbol('no script');
