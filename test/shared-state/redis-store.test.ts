import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';

/** The deadline every gateway has unless REDIS_COMMAND_TIMEOUT_MS says otherwise. */
const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = readConfig({}).redisCommandTimeoutMs;
import { AWAY_AFTER_DEADLINES, MIN_AWAY_AFTER_MS } from '../../src/shared-state/redis-health.js';
import { BEFORE_ANY_PURGE } from '../../src/shared-state/purge-scripts.js';
import { MAX_VALUE_BYTES, RedisStore } from '../../src/shared-state/redis-store.js';
import type { WindowClaimRequest } from '../../src/upstream/shared-store.js';
import { manualClock } from '../support/clock.js';
import { collectedLog, type CollectedLog } from '../support/log-lines.js';
import { startRedisProxy, type RedisProxy } from '../support/redis-proxy.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { SAFETY_MS, within } from '../support/within.js';

const OUTAGE = 'Redis unavailable';
const BACK = 'Redis is back';

let redis: RedisServer;
let proxy: RedisProxy;
let log: CollectedLog;
let store: RedisStore;
const opened: RedisStore[] = [];

/** A store on `url` (default: through the test's proxy), closed after the test. */
async function open(options: { url?: string; keyPrefix?: string; clock?: () => number; log?: CollectedLog } = {}): Promise<RedisStore> {
  const opening = await RedisStore.open({
    url: new URL(options.url ?? proxy.url),
    keyPrefix: options.keyPrefix ?? 'test:',
    commandTimeoutMs: DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    log: options.log ?? log,
    clock: options.clock,
  });
  opened.push(opening);
  return opening;
}

beforeEach(async () => {
  log = collectedLog();
  redis = await startRedisServer();
  proxy = await startRedisProxy(redis.url);
  store = await open();
});
afterEach(async () => {
  for (const closing of opened.splice(0)) await closing.close();
  await proxy.close();
  await redis.stop();
});

/** redis-cli against the test's Redis, one command, its output; `input`, when given, is its last argument (-x), however long. */
function redisCli(args: string[], input?: string): string {
  const x = input === undefined ? [] : ['-x'];
  return execFileSync('redis-cli', ['-p', new URL(redis.url).port, ...x, ...args], { encoding: 'utf8', input });
}

const ADMISSION = { holder: 'this instance', longestHoldMs: 60_000 };

function claim(key: string, lockId: string, fields: Partial<WindowClaimRequest> = {}): WindowClaimRequest {
  return { key, lockId, lockMs: 60_000, freshMs: 1_000, refreshMs: 2_000, admission: ADMISSION, ...fields };
}

describe('RedisStore', () => {
  it('reads a window, and claims its fetch when it is missing or stale, in one script judged by one clock', async () => {
    const clock = manualClock();
    const timed = await open({ clock });
    expect(await timed.claimWindow(claim('w', 'first'))).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
    // The same claim asked again (after a late answer) finds the lock its own; another finds it held.
    expect(await timed.claimWindow(claim('w', 'first'))).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
    expect(await timed.claimWindow(claim('w', 'second'))).toEqual({ outcome: 'held', stored: undefined, purges: BEFORE_ANY_PURGE });

    // Fetched 300 ms ago by its writer's clock: stored that old on the store's, whatever the writer's clock reads.
    await timed.publishWindow('w', 'window', 300, 60_000, 'first', [], BEFORE_ANY_PURGE);
    expect(await timed.claimWindow(claim('w', 'second'))).toEqual({
      outcome: 'fresh',
      stored: { value: 'window', ageMs: 300 },
      purges: BEFORE_ANY_PURGE,
    });
    clock.advance(701);
    // Past its TTL: served stale, and the publish released the first lock, so the second claim takes it.
    expect(await timed.claimWindow(claim('w', 'second'))).toEqual({
      outcome: 'taken',
      stored: { value: 'window', ageMs: 1_001 },
      purges: BEFORE_ANY_PURGE,
    });
    await timed.releaseWindow('w', 'first');
    expect(await timed.claimWindow(claim('w', 'third'))).toEqual({
      outcome: 'held',
      stored: { value: 'window', ageMs: 1_001 },
      purges: BEFORE_ANY_PURGE,
    });
    await timed.releaseWindow('w', 'second');
    expect((await timed.claimWindow(claim('w', 'third'))).outcome).toBe('taken');
  });

  it('claims a fetch only past the hold another instance wrote, and takes its call from the budget, leaving the reserve to refreshes', async () => {
    const clock = manualClock();
    const timed = await open({ clock });
    const budget = { key: 'budget', shape: { burst: 3, perMinute: 3 }, reserve: 1 };
    await timed.hold('another instance', 5_000, true);
    expect(await timed.claimWindow(claim('w', 'a', { admission: { ...ADMISSION, budget } }))).toEqual({
      outcome: 'held back',
      reason: 'rate_limited',
      waitMs: 5_000,
      stored: undefined,
      purges: BEFORE_ANY_PURGE,
    });
    // Held back, the claim let its lock go: nobody waits for a fetch that will not be made.
    expect(await timed.claimWindow(claim('w', 'b', { admission: { ...ADMISSION, holder: 'another instance', budget } }))).toMatchObject({
      outcome: 'taken',
    });
    await timed.releaseWindow('w', 'b');
    clock.advance(5_000);
    await timed.publishWindow('stale', 'window', 1_500, 60_000, undefined, [], BEFORE_ANY_PURGE);
    // A refresh of a window still served (past its TTL, within stale-while-revalidate) leaves the reserve: one of two.
    expect(await timed.claimWindow(claim('stale', 'c', { admission: { ...ADMISSION, budget } }))).toMatchObject({ outcome: 'taken' });
    await timed.releaseWindow('stale', 'c');
    expect(await timed.claimWindow(claim('stale', 'd', { admission: { ...ADMISSION, budget } }))).toMatchObject({
      outcome: 'held back',
      reason: 'budget_spent',
    });
    // A window nobody can be served takes the last call.
    expect(await timed.claimWindow(claim('w', 'e', { admission: { ...ADMISSION, budget } }))).toMatchObject({ outcome: 'taken' });
    expect(await timed.admit({ ...ADMISSION, budget })).toMatchObject({ outcome: 'held back', reason: 'budget_spent' });
  });

  it('reads no window longer than the gateway writes: one planted in Redis is not read, and reads as none', async () => {
    redisCli(['HSET', 'test:planted', 'at', '0']);
    redisCli(['HSET', 'test:planted', 'v'], 'x'.repeat(MAX_VALUE_BYTES + 1));
    expect(await store.claimWindow(claim('planted', 'a'))).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
    // Another type under the key, or a stamp that is no number, is no window either.
    redisCli(['SET', 'test:string', 'value']);
    expect(await store.claimWindow(claim('string', 'a'))).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
    redisCli(['HSET', 'test:nan', 'v', 'window', 'at', 'nan']);
    expect(await store.claimWindow(claim('nan', 'a'))).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
  });

  it('keeps the token, its renewal lock and the refused flag, drops a token only while it is still the refused one', async () => {
    const clock = manualClock();
    const timed = await open({ clock });
    const request = { lockId: 'a', lockMs: 60_000, skip: [] };
    expect(await timed.claimToken(request)).toEqual({ outcome: 'taken' });
    expect(await timed.claimToken({ ...request, lockId: 'b' })).toEqual({ outcome: 'held' });
    await timed.publishToken({ value: 'first', refreshInMs: 1_000, expiresInMs: 2_000 }, 'a');
    expect(await timed.claimToken({ ...request, lockId: 'b' })).toEqual({
      outcome: 'token',
      token: { value: 'first', refreshInMs: 1_000, expiresInMs: 2_000 },
    });
    // Skipped as refused: the claim takes the lock to renew it.
    expect(await timed.claimToken({ ...request, lockId: 'b', skip: ['first'] })).toEqual({ outcome: 'taken' });
    await timed.publishToken({ value: 'second', refreshInMs: 1_000, expiresInMs: 2_000 }, 'b');
    await timed.dropToken('first');
    expect(await timed.claimToken({ ...request, lockId: 'c' })).toMatchObject({ outcome: 'token', token: { value: 'second' } });
    await timed.dropToken('second');
    expect(await timed.claimToken({ ...request, lockId: 'c' })).toEqual({ outcome: 'taken' });
    await timed.refuseCredentials(30_000);
    expect(await timed.claimToken({ ...request, lockId: 'c' })).toEqual({ outcome: 'refused' });
    const other = await open({ keyPrefix: 'other:' });
    expect(await other.claimToken({ ...request, lockId: 'd' })).toEqual({ outcome: 'taken' });
  });

  it('reads a bucket whose stored state no gateway wrote as a full one, rather than keeping it empty for ever', async () => {
    const bucket = { burst: 3, perMinute: 60 };
    // Each take renews the key's expiry: a count that never refills would hold the client (or the fleet's budget) back for good.
    for (const tokens of ['-1e300', '-inf', 'nan', '1e300']) {
      redisCli(['HSET', 'test:poisoned', 'tokens', tokens, 'at', '0']);
      expect(await store.take('poisoned', bucket, 1)).toEqual({ allowed: true });
      expect(await store.take('poisoned', bucket, 2)).toEqual({ allowed: true });
      expect(await store.take('poisoned', bucket, 1)).toEqual({ allowed: false, retryAfterMs: expect.any(Number) });
    }
    redisCli(['SET', 'test:poisoned', 'not a bucket']);
    expect(await store.take('poisoned', bucket, 3)).toEqual({ allowed: true });
  });

  it('takes one late answer for a miss, not an outage', async () => {
    proxy.delayMs = 4 * DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
    expect(await store.claimWindow(claim('w', 'a'))).toEqual({ outcome: 'missed', stored: undefined });
    proxy.delayMs = 0;
    await proxy.drained();
    // The late claim took the lock; asked again with its id (until answered in time), it is found to be this claim's.
    let again = await store.claimWindow(claim('w', 'a'));
    while (again.outcome === 'missed') again = await store.claimWindow(claim('w', 'a'));
    expect(again).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
    // A decision that cannot be asked twice (tokens taken from a bucket) waits for its late answer instead.
    proxy.delayMs = 2 * DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
    expect(await store.take('bucket', { burst: 1, perMinute: 1 }, 1)).toEqual({ allowed: true });
    expect(await store.take('bucket', { burst: 1, perMinute: 1 }, 1)).toEqual({ allowed: false, retryAfterMs: expect.any(Number) });
    expect(store.sharing).toBe(true);
    expect(log.count(OUTAGE)).toBe(0);
  });

  it('takes answers that all come late, but within the window of misses, for a Redis that is there, not an outage', async () => {
    // As when many calls are queued at once on a busy host: each is answered, each after its deadline.
    proxy.delayMs = DEFAULT_REDIS_COMMAND_TIMEOUT_MS + 100;
    const outcomes: string[] = [];
    // Calls one after another for twice the window: without the late answers, the misses alone would span it.
    const awayAfterMs = Math.max(MIN_AWAY_AFTER_MS, AWAY_AFTER_DEADLINES * DEFAULT_REDIS_COMMAND_TIMEOUT_MS);
    for (let i = 0; i < (2 * awayAfterMs) / DEFAULT_REDIS_COMMAND_TIMEOUT_MS; i++) {
      outcomes.push((await store.claimWindow(claim(`late ${i}`, 'a'))).outcome);
    }
    // Each a miss (one taken in time, its deadline's timer run late on a busy host, proves no less).
    expect(outcomes).not.toContain('unavailable');
    expect(store.sharing).toBe(true);
    expect(log.count(OUTAGE)).toBe(0);
  });

  it('takes Redis frozen for an outage once nothing is answered in time for a while, makes no call then, and shares again once it thaws', async () => {
    redis.freeze();
    const outage = log.next(OUTAGE);
    // Until the misses span the window, each call is a miss: the store is still taken to be there.
    const outcomes: string[] = [];
    while (store.sharing) outcomes.push((await store.claimWindow(claim('w', 'a'))).outcome);
    await outage;
    expect(new Set(outcomes)).toEqual(new Set(['missed']));
    expect(outcomes.length).toBeGreaterThan(1);
    // While Redis is away no call is made: nothing reaches it, and each answers as nothing shared.
    const writes = proxy.writes;
    const calls = await Promise.all(Array.from({ length: 50 }, () => store.claimWindow(claim('w', 'a'))));
    expect(new Set(calls.map((call) => call.outcome))).toEqual(new Set(['unavailable']));
    expect(proxy.writes).toBe(writes);
    const back = log.next(BACK);
    redis.thaw();
    await within(back, SAFETY_MS, 'Redis to be found back');
    expect((await store.claimWindow(claim('other', 'b'))).outcome).toBe('taken');
    expect(log.count(OUTAGE)).toBe(1);
    expect(log.count(BACK)).toBe(1);
  });

  it('takes a lost connection for an outage at once, goes on alone, and shares again once Redis is restarted', async () => {
    await store.publishWindow('w', 'before', 0, 60_000, undefined, [], BEFORE_ANY_PURGE);
    const outage = log.next(OUTAGE);
    await redis.kill();
    await within(outage, SAFETY_MS, 'the outage to be noticed');
    expect(await store.claimWindow(claim('w', 'a'))).toEqual({ outcome: 'unavailable', stored: undefined });
    const back = log.next(BACK);
    await redis.restart();
    await within(back, SAFETY_MS, 'Redis to be found back');
    await store.publishWindow('w', 'after', 0, 60_000, undefined, [], BEFORE_ANY_PURGE);
    expect(await store.claimWindow(claim('w', 'a'))).toMatchObject({ outcome: 'fresh', stored: { value: 'after' } });
    expect(log.count(OUTAGE)).toBe(1);
  });

  it('starts without Redis, never logging its password, and shares once it is there', async () => {
    const guarded = await startRedisServer({ password: 's3cret-redis-password' });
    try {
      const wrong = new URL(guarded.url);
      wrong.password = 'wrong-redis-password';
      const refusedLog = collectedLog();
      const refused = await open({ url: wrong.href, log: refusedLog });
      expect(refused.sharing).toBe(false);
      expect((await refused.claimWindow(claim('a', 'a'))).outcome).toBe('unavailable');
      expect(refusedLog.count(OUTAGE)).toBe(1);
      expect(JSON.stringify(refusedLog.lines)).not.toContain('wrong-redis-password');
      const right = await open({ url: guarded.url });
      await right.publishWindow('a', 'x', 0, 1_000, undefined, [], BEFORE_ANY_PURGE);
      expect(await right.claimWindow(claim('a', 'a'))).toMatchObject({ outcome: 'fresh', stored: { value: 'x' } });
      expect(JSON.stringify(log.lines)).not.toContain('s3cret-redis-password');
    } finally {
      for (const closing of opened.splice(1)) await closing.close();
      await guarded.stop();
    }
  });
});
