import { ErrorReply } from '@redis/client';
import { type Alarm, type Clock, systemAlarm } from '../upstream/resilience/clock.js';
import type { UpstreamLog } from '../upstream/log.js';
import { RedisHealth, type SharingState } from './redis-health.js';
import { connectRedisNodes, type RedisNodes } from './redis-nodes.js';
import { isPassing, refusalOf } from './redis-refusals.js';
import type { RedisTarget } from './redis-target.js';
import { CHECK_SCRIPT, type LuaScript } from './scripts.js';

export interface RedisConnectionOptions {
  target: RedisTarget;
  /** With a sentinel target, the sentinels' own password. */
  sentinelPassword?: string | undefined;
  /** The deadline of every call, held by the gateway itself. */
  commandTimeoutMs: number;
  log: UpstreamLog;
  /** The fleet's one clock as the scripts read it: Redis's own (TIME) unless a test gives its own. */
  clock?: Clock | undefined;
  /** What rings each call's deadline; tests ring it when they choose. */
  alarm?: Alarm | undefined;
  /** Loaded on every master each time Redis is found to serve, so that EVALSHA finds them. */
  scripts: readonly LuaScript[];
  /** The keys CHECK_SCRIPT runs on (under the key prefix, as every key the gateway writes). */
  checkKeys: readonly string[];
}

export interface CallOptions {
  /** Made even while Redis is taken to be away (a lock released, so that nobody waits on it), as long as the client is connected. */
  evenIfAway?: boolean | undefined;
}

interface Listening {
  channel: string;
  listener: () => void;
  /** Subscribed, or being: not asked again. */
  subscribed: boolean;
}

/** A call with no answer within its deadline: what it did is unknown. */
export const MISSED = Symbol('missed');
/** A call not made (Redis is taken to be away, or refuses) or failed (refused, connection lost): nothing shared. */
export const UNAVAILABLE = Symbol('unavailable');

export function failed(reply: unknown): reply is typeof MISSED | typeof UNAVAILABLE {
  return reply === MISSED || reply === UNAVAILABLE;
}

/** Longest a starting gateway waits to learn whether Redis serves it, and its token at start for Redis to serve or refuse. */
export const STARTUP_WAIT_MS = 5_000;

const NO_SCRIPT = Symbol('no script');

/**
 * The connection to Redis (node-redis, whichever topology REDIS_URL names)
 * and how every call on it is made: under the gateway's own deadline, as
 * node-redis's command timeout does not fire once a command is written to a
 * hung server; without the offline queue, so that a call made while a node
 * is away fails at once; and, while Redis is taken to be away or refuses the
 * gateway (see RedisHealth), not at all, the client reconnecting by itself.
 * Whether Redis serves the gateway is shown, not assumed: every script loaded
 * and CHECK_SCRIPT (every command the gateway uses, on its keys) answered in
 * time, on every master of a cluster.
 */
export class RedisConnection {
  readonly #nodes: RedisNodes;
  readonly #timeoutMs: number;
  readonly #health: RedisHealth;
  readonly #log: UpstreamLog;
  readonly #clock: Clock | undefined;
  readonly #alarm: Alarm;
  readonly #scripts: readonly LuaScript[];
  readonly #checkKeys: readonly string[];
  readonly #topology: RedisTarget['topology'];
  /** Replies no refusal explains (a script's error), logged once each: one fault is one line. */
  readonly #reportedReplies = new Set<string>();
  /** What listens on channels (subscribe), told each time Redis is found to serve again. */
  readonly #listening: Listening[] = [];
  #closed = false;
  /** Resolves once Redis has first served the gateway or refused it, or the connection is closed. */
  readonly #known: Promise<void>;
  #markKnown = () => {};

  private constructor(options: RedisConnectionOptions, settled: () => void) {
    this.#timeoutMs = options.commandTimeoutMs;
    this.#log = options.log;
    this.#clock = options.clock;
    this.#alarm = options.alarm ?? systemAlarm;
    this.#scripts = options.scripts;
    this.#checkKeys = options.checkKeys;
    this.#topology = options.target.topology;
    this.#known = new Promise<void>((resolve) => (this.#markKnown = resolve));
    this.#health = new RedisHealth({
      log: options.log,
      commandTimeoutMs: options.commandTimeoutMs,
      known: () => this.#markKnown(),
      probe: () =>
        this.#serves().then((serves) => {
          // Known once the client had connected: a probe before that (a cluster node ready before the rest) tells nothing.
          if (serves || this.#nodes.ready) settled();
          return serves;
        }),
      onSharing: () => {
        for (const listening of this.#listening) {
          if (!listening.subscribed) this.#listen(listening);
          listening.listener();
        }
      },
    });
    this.#nodes = connectRedisNodes({
      target: options.target,
      sentinelPassword: options.sentinelPassword,
      connectTimeoutMs: Math.max(options.commandTimeoutMs * 10, 1_000),
      onReady: () => this.#health.connected(),
      onError: (error, lost) => {
        this.#reportFailure(error, lost);
        // Refused, or not reachable at all: a starting gateway waits no longer to know.
        if (this.#health.state.state === 'refused' || lost) settled();
      },
    });
  }

  /**
   * A connection to Redis, once it has been found to serve or not (at most
   * STARTUP_WAIT_MS): the first requests share if it does, and a gateway
   * starts whether it does or not. Until then every call reads as nothing shared.
   */
  static async open(options: RedisConnectionOptions): Promise<RedisConnection> {
    let resolve = () => {};
    const settled = new Promise<void>((settle) => (resolve = settle));
    const connection = new RedisConnection(options, () => resolve());
    const timer = setTimeout(resolve, STARTUP_WAIT_MS);
    await settled;
    clearTimeout(timer);
    return connection;
  }

  /** Whether calls go to Redis now. */
  get sharing(): boolean {
    return this.#health.sharing;
  }

  /**
   * Resolves once Redis has first served the gateway (sharing) or refused it (a setting to change), or after `maxWaitMs`:
   * what must not be done alone while Redis may yet serve (the token at start) waits for it. open() may have returned
   * before (a connection attempt failed, or a probe missed its deadline, on a host too busy to connect at once); an
   * outage seen before the first connection is not a verdict, the bound is.
   */
  known(maxWaitMs = STARTUP_WAIT_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, maxWaitMs);
      timer.unref();
    });
    return Promise.race([this.#known, bound]).finally(() => clearTimeout(timer));
  }

  /** Whether this instance shares now, and if not, why. */
  get state(): SharingState {
    return this.#health.state;
  }

  /** One command, made only while Redis is taken to serve; `key` routes it in a cluster. */
  command(args: string[], key: string, how: CallOptions = {}): Promise<unknown> {
    return this.#allowed(how) ? this.#call(args, key) : Promise.resolve(UNAVAILABLE);
  }

  /**
   * A script by its digest, its first argument the time (empty: Redis's own), sent whole the first time a server has
   * not seen it (one flushed, restarted or promoted since the scripts were loaded). Routed by its first key, which
   * shares its hash slot with every other key it names.
   */
  async script(script: LuaScript, keys: string[], args: string[], how: CallOptions = {}): Promise<unknown> {
    if (!this.#allowed(how)) return UNAVAILABLE;
    return this.#evaluate(script, keys, args);
  }

  /**
   * Calls `listener` on each message on the sharded channel `channel` (SSUBSCRIBE: on a cluster it lives on the master
   * of its slot, beside the keys whose script publishes on it), and each time Redis is found to serve again, as
   * messages sent meanwhile are lost. node-redis listens on a connection of its own and subscribes again after a
   * reconnection or a failover; a subscription that failed (Redis not reached yet) is made again once Redis serves.
   */
  subscribe(channel: string, listener: () => void): void {
    const listening = { channel, listener, subscribed: false };
    this.#listening.push(listening);
    this.#listen(listening);
  }

  #listen(listening: Listening): void {
    listening.subscribed = true;
    this.#nodes.subscribe(listening.channel, listening.listener).catch((error: unknown) => {
      listening.subscribed = false;
      if (!this.#closed) this.#log.warn({ channel: listening.channel, detail: String(error) }, 'Could not listen on a Redis channel');
    });
  }

  /** Stops reconnecting and closes the connection; calls still waiting on a hung server are left to their deadlines. */
  close(): void {
    this.#closed = true;
    this.#health.stop();
    this.#nodes.close();
    this.#markKnown();
  }

  #allowed(how: CallOptions): boolean {
    return this.#health.sharing || (how.evenIfAway === true && this.#nodes.ready && this.#health.state.state === 'unavailable');
  }

  async #evaluate(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    const now = this.#clock ? String(Math.floor(this.#clock())) : '';
    const tail = [String(keys.length), ...keys, now, ...args];
    const reply = await this.#call(['EVALSHA', script.sha1, ...tail], keys[0], 'NOSCRIPT');
    return reply === NO_SCRIPT ? this.#call(['EVAL', script.source, ...tail], keys[0]) : reply;
  }

  /**
   * Whether Redis serves the gateway now: the scripts loaded on every master (pipelined; one that fails leaves EVALSHA
   * to fall back on EVAL), and, each answered within its deadline, every master (a cluster's new one too, once
   * node-redis has found it) and CHECK_SCRIPT.
   */
  async #serves(): Promise<boolean> {
    if (!this.#nodes.ready) return false;
    const loads = this.#scripts.flatMap((script) => this.#withinDeadline(this.#nodes.toEveryMaster(['SCRIPT', 'LOAD', script.source])));
    const pings = this.#topology === 'cluster' ? this.#withinDeadline(this.#nodes.toEveryMaster(['PING'])) : [];
    const [, pinged] = await Promise.all([Promise.all(loads), Promise.all(pings)]);
    if (pinged.some(failed)) return false;
    return (await this.#evaluate(CHECK_SCRIPT, [...this.#checkKeys], [])) === 1;
  }

  #withinDeadline(calls: Promise<unknown>[]): Promise<unknown>[] {
    return calls.map((call) => this.#settle(call, performance.now()));
  }

  /** One command under the deadline: an answer, MISSED when none came in time, UNAVAILABLE when it failed. */
  #call(args: string[], key: string | undefined, expected?: string): Promise<unknown> {
    let sent: Promise<unknown>;
    try {
      sent = this.#nodes.send(args, key);
    } catch (error) {
      sent = Promise.reject(error);
    }
    return this.#settle(sent, performance.now(), args[0] ?? '', expected);
  }

  #settle(sent: Promise<unknown>, sentAt: number, command = '', expected?: string): Promise<unknown> {
    return new Promise((resolve) => {
      let settled = false;
      const silence = this.#alarm(this.#timeoutMs, () =>
        // After the event loop's poll phase: on a loop running late the answer may be waiting, unread, on the socket.
        setImmediate(() => {
          if (settled) return;
          settled = true;
          this.#health.missed(sentAt);
          resolve(MISSED);
        }),
      );
      sent.then(
        (reply) => {
          // A late answer is not counted as one: a Redis that answers only late is as good as away.
          if (settled) return;
          settled = true;
          silence();
          this.#health.answered();
          resolve(reply);
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          silence();
          resolve(this.#failed(error, command, expected));
        },
      );
    });
  }

  #failed(error: unknown, command: string, expected: string | undefined): typeof UNAVAILABLE | typeof NO_SCRIPT {
    if (error instanceof ErrorReply) {
      if (expected !== undefined && error.message.startsWith(expected)) {
        this.#health.answered();
        return NO_SCRIPT;
      }
      this.#reportFailure(error, false, command);
      return UNAVAILABLE;
    }
    // The connection failed (or the cluster has no node for the key yet): a fact, not a late answer.
    this.#health.down(error);
    return UNAVAILABLE;
  }

  /** A failure told by a call's reply or by the client: a refusal to say, an outage, or a reply to log once. */
  #reportFailure(error: unknown, lost: boolean, command = ''): void {
    const refusal = refusalOf(error, this.#topology);
    const message = error instanceof Error ? error.message : String(error);
    if (refusal !== undefined) {
      this.#health.refused(refusal, message);
    } else if (lost || (error instanceof ErrorReply && isPassing(message))) {
      // Redis answered a passing refusal (a failover under way), or the connection is lost.
      this.#health.down(error);
    } else if (error instanceof ErrorReply) {
      // Redis answered: the node is up, and refused this one command (a script's fault).
      this.#reportReply(message, command);
    }
  }

  #reportReply(message: string, command: string): void {
    this.#health.answered();
    const what = `${command} ${message.split(' ')[0]}`;
    if (!this.#reportedReplies.has(what)) {
      this.#reportedReplies.add(what);
      this.#log.warn({ command, reply: message.slice(0, 200) }, 'Redis refused a command; going on without sharing it');
    }
  }
}
