import { createClient, ErrorReply } from '@redis/client';
import type { Clock } from '../upstream/resilience/clock.js';
import type { UpstreamLog } from '../upstream/log.js';
import { RedisHealth } from './redis-health.js';
import type { LuaScript } from './scripts.js';

export interface RedisConnectionOptions {
  /** `redis://` or `rediss://` (TLS), user and password in it. */
  url: URL;
  /** The deadline of every call, held by the gateway itself. */
  commandTimeoutMs: number;
  log: UpstreamLog;
  /** The fleet's one clock as the scripts read it: Redis's own (TIME) unless a test gives its own. */
  clock?: Clock | undefined;
  /** Loaded each time the connection is (re)established, so that EVALSHA finds them. */
  scripts: readonly LuaScript[];
}

export interface CallOptions {
  /** Made even while Redis is taken to be away (a lock released, so that nobody waits on it), as long as the client is connected. */
  evenIfAway?: boolean | undefined;
  /** Waits past the deadline for the answer, until Redis is taken to be away (see #call). */
  patient?: boolean | undefined;
}

/** A call with no answer within its deadline: what it did is unknown. */
export const MISSED = Symbol('missed');
/** A call not made (Redis is taken to be away) or failed (refused, connection lost): nothing shared. */
export const UNAVAILABLE = Symbol('unavailable');

export function failed(reply: unknown): reply is typeof MISSED | typeof UNAVAILABLE {
  return reply === MISSED || reply === UNAVAILABLE;
}

/** Reconnection waits this long after the first failure, doubling ... */
const RECONNECT_BASE_MS = 50;
/** ... up to this, with jitter so that a fleet does not reconnect in step. */
const RECONNECT_MAX_MS = 2_000;

/** Longest a starting gateway waits to learn whether Redis is there. */
const STARTUP_WAIT_MS = 2_000;

const NO_SCRIPT = Symbol('no script');

/** node-redis without its offline queue, reconnecting by itself with jittered backoff. */
function clientFor(options: RedisConnectionOptions) {
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

type Client = ReturnType<typeof clientFor>;

/**
 * The connection to Redis (node-redis) and how every call on it is made: under
 * the gateway's own deadline, as node-redis's command timeout does not fire
 * once a command is written to a hung server; without the offline queue, so
 * that a call made while Redis is away fails at once; and, while Redis is
 * taken to be away (see RedisHealth), not at all, the client reconnecting by
 * itself with backoff.
 */
export class RedisConnection {
  readonly #client: Client;
  readonly #timeoutMs: number;
  readonly #health: RedisHealth;
  readonly #log: UpstreamLog;
  readonly #clock: Clock | undefined;
  readonly #scripts: readonly LuaScript[];
  /** Reply errors (a missing permission, a script refused) logged once each: one misconfiguration is one line. */
  readonly #reportedReplies = new Set<string>();
  /** Connections of their own that listen on channels (subscribe). */
  readonly #subscribers: Client[] = [];
  #closed = false;

  private constructor(client: Client, options: RedisConnectionOptions) {
    this.#client = client;
    this.#timeoutMs = options.commandTimeoutMs;
    this.#log = options.log;
    this.#clock = options.clock;
    this.#scripts = options.scripts;
    this.#health = new RedisHealth({
      log: options.log,
      commandTimeoutMs: options.commandTimeoutMs,
      ping: () => this.#call(['PING']).then((reply) => !failed(reply)),
      ready: () => client.isReady,
    });
  }

  /**
   * A connection to Redis, once it has connected or failed to (at most
   * STARTUP_WAIT_MS): the first requests share if Redis is there, and a
   * gateway starts whether it is or not. Until Redis answers, every call reads
   * as nothing shared.
   */
  static async open(options: RedisConnectionOptions): Promise<RedisConnection> {
    const client = clientFor(options);
    const connection = new RedisConnection(client, options);
    let resolve = () => {};
    const settled = new Promise<void>((settle) => (resolve = settle));
    client.on('ready', () => {
      // Loaded on every connection (a restarted Redis has forgotten them): EVALSHA then finds them, in one round trip.
      void connection.#loadScripts().then(() => {
        connection.#health.up();
        resolve();
      });
    });
    // Without a listener node-redis's errors would crash the process; the message names no password.
    client.on('error', (error: unknown) => {
      connection.#health.down(error);
      resolve();
    });
    // connect() retries by itself until Redis answers; close() ends it.
    client.connect().catch((error: unknown) => connection.#health.down(error));
    const timer = setTimeout(resolve, STARTUP_WAIT_MS);
    await settled;
    clearTimeout(timer);
    return connection;
  }

  /** Whether calls go to Redis now. */
  get sharing(): boolean {
    return this.#health.sharing;
  }

  /** One command, made only while Redis is taken to be up. */
  command(args: string[], how: CallOptions & { expected?: string | undefined } = {}): Promise<unknown> {
    if (!this.#health.sharing) return Promise.resolve(UNAVAILABLE);
    return this.#call(args, how);
  }

  /**
   * A script by its digest, its first argument the time (empty: Redis's own), sent whole the first time a server has
   * not seen it (one flushed, or restarted since the scripts were loaded).
   */
  async script(script: LuaScript, keys: string[], args: string[], how: CallOptions = {}): Promise<unknown> {
    const now = this.#clock ? String(Math.floor(this.#clock())) : '';
    const tail = [String(keys.length), ...keys, now, ...args];
    const send = (command: string[], expected?: string) =>
      how.evenIfAway && this.#client.isReady ? this.#call(command, { ...how, expected }) : this.command(command, { ...how, expected });
    const reply = await send(['EVALSHA', script.sha1, ...tail], 'NOSCRIPT');
    return reply === NO_SCRIPT ? send(['EVAL', script.source, ...tail]) : reply;
  }

  /**
   * Calls `listener` on each message on `channel`, and each time its connection (one of its own: a subscribed
   * connection takes no other command) is set up again, as messages sent meanwhile are lost. Reconnects by itself;
   * its failures are left to the main connection to report.
   */
  subscribe(channel: string, listener: () => void): void {
    const subscriber = this.#client.duplicate();
    this.#subscribers.push(subscriber);
    subscriber.on('error', () => {});
    let connected = false;
    subscriber.on('ready', () => {
      if (connected) listener();
      connected = true;
    });
    subscriber
      .connect()
      .then(() => subscriber.subscribe(channel, () => listener()))
      .catch((error: unknown) => {
        if (!this.#closed) this.#log.warn({ channel, detail: String(error) }, 'Could not listen on a Redis channel');
      });
  }

  /** Stops reconnecting and closes the connection; calls still waiting on a hung server are left to their deadlines. */
  close(): void {
    this.#closed = true;
    this.#health.stop();
    this.#client.destroy();
    for (const subscriber of this.#subscribers) subscriber.destroy();
  }

  async #loadScripts(): Promise<void> {
    // Pipelined: one round trip for all. A failure leaves EVALSHA to fall back on EVAL.
    await Promise.all(this.#scripts.map((script) => this.#call(['SCRIPT', 'LOAD', script.source])));
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
          if (settled) {
            // Taken for a miss, but Redis is there: its queue was long or the host busy. Only an answer later than the
            // whole window of misses leaves Redis as good as away.
            if (performance.now() - sentAt < this.#health.awayAfterMs) this.#health.answered();
            return;
          }
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
