import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';

/** The deadline every gateway has unless REDIS_COMMAND_TIMEOUT_MS says otherwise. */
const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = readConfig({}).redisCommandTimeoutMs;
import type { UpstreamLog } from '../../src/upstream/log.js';
import type { Clock } from '../../src/upstream/resilience/clock.js';
import { RedisStore } from '../../src/shared-state/redis-store.js';
import { parseRedisTarget, type RedisTarget } from '../../src/shared-state/redis-target.js';
import { manualClock, type ManualClock } from './clock.js';
import { freePorts } from './free-port.js';
import { stopChild } from './processes.js';
import { collectedLog } from './log-lines.js';
import { eventually, within } from './within.js';

/** A redis-server this test started on a loopback port, run by its PID. */
export interface RedisServer {
  /** `redis://127.0.0.1:PORT` (with the password, when one was set). */
  readonly url: string;
  readonly pid: number;
  /** SIGSTOP: connections stay open and nothing is answered, as with a hung server. */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
  /** SIGKILL, and waits for it to be gone: connections are reset, the port refuses. */
  kill(): Promise<void>;
  /** Starts it again, empty, on the same port. */
  restart(): Promise<void>;
  /** Stops it whatever its state; the end of a test. */
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** requirepass: clients must AUTH with it. */
  password?: string;
}

const START_TIMEOUT_MS = 15_000;

/** What a Redis process prints once it serves: a server, a cluster node, or (once it monitors its master) a sentinel. */
const READY = /Ready to accept connections|\+monitor master/;

/**
 * Starts `redis-server` with `args` (a config file first for a sentinel) and resolves once it says it serves; rejects
 * if it exits first (its port taken, say), leaving nothing behind.
 */
export async function spawnRedis(args: string[], cwd?: string): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'], cwd });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (READY.test(output)) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
  });
  try {
    await within(ready, START_TIMEOUT_MS, 'redis-server accepting connections');
  } catch (error) {
    // A server that never said it was ready is not left behind.
    await stopChild(child);
    throw error;
  }
  // Its later output is not read: drained, so a chatty server never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

/** The arguments of a server on loopback `port` without persistence. */
export function serverArgs(port: number): string[] {
  return ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'];
}

/** Starts redis-server on `port` and resolves when it says it accepts connections; rejects if it exits first. */
function spawnOn(port: number, options: RedisServerOptions): Promise<ChildProcess> {
  const args = serverArgs(port);
  if (options.password !== undefined) args.push('--requirepass', options.password);
  return spawnRedis(args);
}

/**
 * Ports must be told to Redis before it starts (`--port 0` means no TCP at all), so a free one is found and may be
 * taken by another process before Redis binds it: the start is tried again on other ports.
 */
async function onFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>, options: { bus?: boolean } = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const ports = await freePorts(count, options.bus === true);
    try {
      return await start(ports);
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

/**
 * Redis processes a test runs together (a cluster's nodes; a master, its replicas and its sentinels), by port, in a
 * folder of their own: a replica writes there what its master sends it, a node its cluster file, a sentinel its config.
 */
export class RedisGroup {
  readonly #processes = new Map<number, ChildProcess>();
  readonly dir: string;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static async create(name: string): Promise<RedisGroup> {
    return new RedisGroup(await mkdtemp(join(tmpdir(), `csg-${name}-`)));
  }

  /**
   * Runs `start` on `count` free ports (with `bus`, their cluster bus ports free too); when a port was taken meanwhile
   * (the start fails), stops what it started and tries other ports.
   */
  onFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>, options: { bus?: boolean } = {}): Promise<T> {
    return onFreePorts(
      count,
      async (ports) => {
        try {
          return await start(ports);
        } catch (error) {
          await this.stopAll();
          throw error;
        }
      },
      options,
    );
  }

  /** Starts redis-server on `port` with `args` (see spawnRedis), in the group's folder. */
  async start(port: number, args: string[]): Promise<void> {
    this.#processes.set(port, await spawnRedis(args, this.dir));
  }

  /** Whether the process on `port` runs (was not killed). */
  runs(port: number): boolean {
    return this.#processes.has(port);
  }

  /** SIGKILL the process on `port`, by its PID, and waits for it to be gone. */
  async kill(port: number): Promise<void> {
    const child = this.#processes.get(port);
    this.#processes.delete(port);
    if (child) await stopChild(child);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#processes.keys()].map((port) => this.kill(port)));
  }

  /** Stops every process and removes the folder: the end of a test, or of a start that failed. */
  async remove(): Promise<void> {
    await this.stopAll();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Debian's redis-server on a free loopback port, without persistence, stopped by the test with stop(). */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const { port, child } = await onFreePorts(1, async ([port]) => ({ port: port!, child: await spawnOn(port!, options) }));
  let current: ChildProcess = child;
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  return {
    url: `redis://${auth}127.0.0.1:${port}`,
    get pid() {
      return current.pid ?? 0;
    },
    freeze: () => current.kill('SIGSTOP'),
    thaw: () => current.kill('SIGCONT'),
    kill: () => stopChild(current),
    async restart() {
      await stopChild(current);
      current = await spawnOn(port, options);
    },
    stop: () => stopChild(current),
  };
}

/** What REDIS_URL=`url` names, as the gateway reads it. */
export function redisTarget(url: string): RedisTarget {
  const target = parseRedisTarget(url, 'REDIS_URL');
  if (typeof target === 'string') throw new Error(target);
  return target;
}

/** A redis-server of its own and a RedisStore on it (keys under `test:`, scripts on `clock`), for tests of the store's users; `close` stops both. */
export async function startRedisStore(
  log: UpstreamLog,
  clock?: Clock,
): Promise<{ redis: RedisServer; store: RedisStore; close(): Promise<void> }> {
  const redis = await startRedisServer();
  const store = await RedisStore.open({
    target: redisTarget(redis.url),
    keyPrefix: 'test:',
    commandTimeoutMs: DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    log,
    clock,
  });
  return {
    redis,
    store,
    async close() {
      await store.close();
      await redis.stop();
    },
  };
}

/** What redisStorePerTest gives a test: its own Redis, a store on it, and the store's clock. */
export interface StorePerTest {
  store(): RedisStore;
  /** The clock the store's scripts judge ages and waits by; it stands still until the test moves it. */
  clock(): ManualClock;
  /** redis-cli against the test's Redis: one command, its output (keys under `test:`). */
  cli(...args: string[]): string;
}

/**
 * A redis-server and a RedisStore on it for each test of the calling file,
 * both stopped after the test: call at the top of the file, and `store()` in
 * a test is that test's own, empty store.
 */
export function redisStorePerTest(): StorePerTest {
  let started: (Awaited<ReturnType<typeof startRedisStore>> & { clock: ManualClock }) | undefined;
  beforeEach(async () => {
    const clock = manualClock();
    started = { ...(await startRedisStore(collectedLog(), clock)), clock };
    // What a test asks of the store is asked of Redis: on a busy host the store may open before its first probe passed.
    const store = started.store;
    await eventually(() => expect(store.sharing).toBe(true));
  });
  afterEach(() => started?.close());
  const current = () => {
    if (started === undefined) throw new Error('redisStorePerTest: the store exists only inside a test');
    return started;
  };
  return {
    store: () => current().store,
    clock: () => current().clock,
    cli: (...args) => execFileSync('redis-cli', ['-p', new URL(current().redis.url).port, ...args], { encoding: 'utf8' }),
  };
}
