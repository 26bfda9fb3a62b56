import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_VALUE_BYTES, RedisStore } from '../../src/shared-state/redis-store.js';
import { collectedLog, type CollectedLog } from '../support/log-lines.js';
import { startRedisServer, startRedisStore, type RedisServer } from '../support/redis-server.js';
import { within } from '../support/within.js';

const TIMEOUT_MS = 50;
const OUTAGE = 'Redis unavailable';
const BACK = 'Redis is back';

let redis: RedisServer;
let log: CollectedLog;
let store: RedisStore;
let close: () => Promise<void>;

beforeEach(async () => {
  log = collectedLog();
  ({ redis, store, close } = await startRedisStore(log, TIMEOUT_MS));
});
afterEach(() => close?.());

/** How long `call` took to settle, in ms. */
async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await call();
  return { value, ms: performance.now() - started };
}

describe('RedisStore', () => {
  it('reads no value longer than the gateway writes: one planted in Redis is not held whole, and reads as none', async () => {
    // Megabytes each way: a deadline for the transfer, not for a hung Redis.
    const roomy = await RedisStore.open({ url: new URL(redis.url), keyPrefix: 'csg:', commandTimeoutMs: 5_000, log });
    try {
      await roomy.set('longest', 'x'.repeat(MAX_VALUE_BYTES), 60_000);
      expect((await roomy.get('longest'))?.length).toBe(MAX_VALUE_BYTES);
      await roomy.set('planted', 'x'.repeat(MAX_VALUE_BYTES + 1), 60_000);
      expect(await roomy.get('planted')).toBeUndefined();
      // Cut inside a character, the longest value still reads as too long.
      await roomy.set('planted', `${'x'.repeat(MAX_VALUE_BYTES - 1)}é`, 60_000);
      expect(await roomy.get('planted')).toBeUndefined();
      expect(await roomy.get('missing')).toBeUndefined();
    } finally {
      await roomy.close();
    }
  });

  it('keeps values, locks, compare-and-deletes and buckets under its key prefix', async () => {
    expect(store.sharing).toBe(true);
    await store.set('a', 'one', 60_000);
    expect(await store.get('a')).toBe('one');
    const other = await RedisStore.open({ url: new URL(redis.url), keyPrefix: 'other:', commandTimeoutMs: TIMEOUT_MS, log });
    try {
      expect(await other.get('a')).toBeUndefined();
    } finally {
      await other.close();
    }
    await store.deleteIf('a', 'two');
    expect(await store.get('a')).toBe('one');
    await store.deleteIf('a', 'one');
    expect(await store.get('a')).toBeUndefined();

    const first = await store.lock('l', 60_000);
    expect(first.outcome).toBe('taken');
    expect(await store.lock('l', 60_000)).toEqual({ outcome: 'held' });
    if (first.outcome === 'taken') await store.unlock(first.lock);
    expect((await store.lock('l', 60_000)).outcome).toBe('taken');

    const bucket = { burst: 3, perMinute: 60 };
    expect(await store.take('b', bucket, 2)).toEqual({ allowed: true });
    expect(await store.take('b', bucket, 2)).toEqual({ allowed: false, retryAfterMs: expect.any(Number) });
    expect(await store.take('b', bucket, 1)).toEqual({ allowed: true });
    const refused = await store.take('b', bucket, 1);
    // One token a second: the next one is at most a second away.
    expect(refused).toEqual({ allowed: false, retryAfterMs: expect.any(Number) });
    if (refused && !refused.allowed) expect(refused.retryAfterMs).toBeLessThanOrEqual(1_000);
  });

  it('reads a bucket whose stored state no gateway wrote as a full one, rather than keeping it empty for ever', async () => {
    const bucket = { burst: 3, perMinute: 60 };
    const port = new URL(redis.url).port;
    // Each take renews the key's expiry: a count that never refills would hold the client (or the fleet's budget) back for good.
    for (const tokens of ['-1e300', '-inf', 'nan', '1e300']) {
      execFileSync('redis-cli', ['-p', port, 'HSET', 'test:poisoned', 'tokens', tokens, 'at', '0']);
      expect(await store.take('poisoned', bucket, 1)).toEqual({ allowed: true });
      expect(await store.take('poisoned', bucket, 2)).toEqual({ allowed: true });
      expect(await store.take('poisoned', bucket, 1)).toEqual({ allowed: false, retryAfterMs: expect.any(Number) });
    }
  });

  it('answers within its deadline while Redis is frozen, logs the outage once, and shares again once it thaws', async () => {
    redis.freeze();
    const outage = log.next(OUTAGE);
    const hung = await timed(() => store.get('a'));
    expect(hung.value).toBeUndefined();
    // The deadline, plus a busy machine's timer lateness.
    expect(hung.ms).toBeLessThan(TIMEOUT_MS + 250);
    await outage;
    expect(store.sharing).toBe(false);
    // While Redis is away no call is made: each answers at once, nothing shared.
    const calls = await timed(() => Promise.all(Array.from({ length: 50 }, () => store.lock('l', 1_000))));
    expect(calls.value.every((attempt) => attempt.outcome === 'unavailable')).toBe(true);
    expect(calls.ms).toBeLessThan(TIMEOUT_MS);
    const back = log.next(BACK);
    redis.thaw();
    await within(back, 10_000, 'Redis to be found back');
    await store.set('a', 'after', 60_000);
    expect(await store.get('a')).toBe('after');
    expect(log.count(OUTAGE)).toBe(1);
    expect(log.count(BACK)).toBe(1);
  });

  it('goes on alone while Redis is killed and shares again once it is restarted', async () => {
    await store.set('a', 'before', 60_000);
    const outage = log.next(OUTAGE);
    await redis.kill();
    await within(outage, 10_000, 'the outage to be noticed');
    const down = await timed(() => store.get('a'));
    expect(down.value).toBeUndefined();
    expect(down.ms).toBeLessThan(TIMEOUT_MS);
    const back = log.next(BACK);
    await redis.restart();
    await within(back, 10_000, 'Redis to be found back');
    await store.set('a', 'after', 60_000);
    expect(await store.get('a')).toBe('after');
    expect(log.count(OUTAGE)).toBe(1);
  });

  it('starts without Redis, never logging its password, and shares once it is there', async () => {
    const guarded = await startRedisServer({ password: 's3cret-redis-password' });
    const wrong = new URL(guarded.url);
    wrong.password = 'wrong-redis-password';
    const refusedLog = collectedLog();
    const refused = await RedisStore.open({ url: wrong, keyPrefix: 'test:', commandTimeoutMs: TIMEOUT_MS, log: refusedLog });
    try {
      expect(refused.sharing).toBe(false);
      expect(await refused.get('a')).toBeUndefined();
      expect(refusedLog.count(OUTAGE)).toBe(1);
      expect(JSON.stringify(refusedLog.lines)).not.toContain('wrong-redis-password');
      const right = await RedisStore.open({ url: new URL(guarded.url), keyPrefix: 'test:', commandTimeoutMs: TIMEOUT_MS, log });
      await right.set('a', 'x', 1_000);
      expect(await right.get('a')).toBe('x');
      await right.close();
      expect(JSON.stringify(log.lines)).not.toContain('s3cret-redis-password');
    } finally {
      await refused.close();
      await guarded.stop();
    }
  });
});
