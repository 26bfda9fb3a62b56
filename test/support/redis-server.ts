import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { afterEach, beforeEach } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';

/** The deadline every gateway has unless REDIS_COMMAND_TIMEOUT_MS says otherwise. */
const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = readConfig({}).redisCommandTimeoutMs;
import type { UpstreamLog } from '../../src/upstream/log.js';
import type { Clock } from '../../src/upstream/resilience/clock.js';
import { RedisStore } from '../../src/shared-state/redis-store.js';
import { manualClock, type ManualClock } from './clock.js';
import { freePort } from './free-port.js';
import { stopChild } from './processes.js';
import { collectedLog } from './log-lines.js';
import { within } from './within.js';

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

/** Starts redis-server on `port` and resolves when it says it accepts connections; rejects if it exits first. */
async function spawnOn(port: number, options: RedisServerOptions): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'];
  if (options.password !== undefined) args.push('--requirepass', options.password);
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
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

/** Debian's redis-server on a free loopback port, without persistence, stopped by the test with stop(). */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await spawnOn(port, options);
    } catch (error) {
      if (attempt >= 4) throw error;
    }
  }
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

/** A redis-server of its own and a RedisStore on it (keys under `test:`, scripts on `clock`), for tests of the store's users; `close` stops both. */
export async function startRedisStore(
  log: UpstreamLog,
  clock?: Clock,
): Promise<{ redis: RedisServer; store: RedisStore; close(): Promise<void> }> {
  const redis = await startRedisServer();
  const store = await RedisStore.open({
    url: new URL(redis.url),
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
