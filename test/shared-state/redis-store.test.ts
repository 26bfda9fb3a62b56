import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { BEFORE_ANY_PURGE } from '../../src/shared-state/purge-scripts.js';
import { MAX_VALUE_BYTES, RedisStore } from '../../src/shared-state/redis-store.js';
import type { Alarm } from '../../src/upstream/resilience/clock.js';
import type { WindowClaimRequest } from '../../src/upstream/shared-store.js';
import { manualClock } from '../support/clock.js';
import { collectedLog, type CollectedLog } from '../support/log-lines.js';
import { startRedisProxy, type RedisProxy } from '../support/redis-proxy.js';
import { redisTarget, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { recordedAlarms } from '../support/recorded-alarms.js';
import { eventually, SAFETY_MS, within } from '../support/within.js';

/** The deadline every gateway has unless REDIS_COMMAND_TIMEOUT_MS says otherwise. */
const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = readConfig({}).redisCommandTimeoutMs;

const OUTAGE = 'Redis unavailable';
const BACK = 'Redis is back';
const REFUSED = 'Redis refuses what sharing needs';

let redis: RedisServer;
let proxy: RedisProxy;
let log: CollectedLog;
let store: RedisStore;
const opened: RedisStore[] = [];

/** A store on `url` (default: through the test's proxy), closed after the test. */
async function open(
  options: { url?: string; keyPrefix?: string; clock?: () => number; log?: CollectedLog; alarm?: Alarm } = {},
): Promise<RedisStore> {
  const opening = await RedisStore.open({
    target: redisTarget(options.url ?? proxy.url),
    keyPrefix: options.keyPrefix ?? 'test:',
    commandTimeoutMs: DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    log: options.log ?? log,
    clock: options.clock,
    alarm: options.alarm,
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
  return { key, lockId, lockMs: 60_000, freshMs: 1_000, ...fields };
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
    await timed.publishWindow('w', 'window', 300, 60_000, 'first', { tags: [], seen: BEFORE_ANY_PURGE });
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

  it('admits a call only past the hold another instance wrote, and takes it from the budget, leaving the reserve to refreshes', async () => {
    const clock = manualClock();
    const timed = await open({ clock });
    const budget = { key: 'budget', shape: { burst: 3, perMinute: 3 }, reserve: 1 };
    await timed.hold('another instance', 5_000, true);
    expect(await timed.admit({ ...ADMISSION, budget })).toEqual({ outcome: 'held back', reason: 'rate_limited', waitMs: 5_000 });
    // The instance that wrote the hold keeps to its own breaker; its call takes one of three.
    expect(await timed.admit({ ...ADMISSION, holder: 'another instance', budget })).toEqual({ outcome: 'allowed' });
    clock.advance(5_000);
    // A quarter of a call back. A background refresh leaves the reserve (one): it takes one of 2.25, not one of 1.25.
    expect(await timed.admit({ ...ADMISSION, budget, background: true })).toEqual({ outcome: 'allowed' });
    expect(await timed.admit({ ...ADMISSION, budget, background: true })).toMatchObject({ outcome: 'held back', reason: 'budget_spent' });
    // A call a request waits for takes the reserve, and then nothing is left.
    expect(await timed.admit({ ...ADMISSION, budget })).toEqual({ outcome: 'allowed' });
    expect(await timed.admit({ ...ADMISSION, budget })).toMatchObject({ outcome: 'held back', reason: 'budget_spent' });
  });

  it('reads no window longer than the gateway writes: one planted in Redis is not read, and reads as none', async () => {
    redisCli(['HSET', 'test:{planted}', 'at', '0']);
    redisCli(['HSET', 'test:{planted}', 'v'], 'x'.repeat(MAX_VALUE_BYTES + 1));
    expect(await store.claimWindow(claim('planted', 'a'))).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
    // Another type under the key, or a stamp that is no number, is no window either.
    redisCli(['SET', 'test:{string}', 'value']);
    expect(await store.claimWindow(claim('string', 'a'))).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
    redisCli(['HSET', 'test:{nan}', 'v', 'window', 'at', 'nan']);
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
      redisCli(['HSET', 'test:{poisoned}', 'tokens', tokens, 'at', '0']);
      expect(await store.take('poisoned', bucket, 1)).toEqual({ allowed: true });
      expect(await store.take('poisoned', bucket, 2)).toEqual({ allowed: true });
      expect(await store.take('poisoned', bucket, 1)).toEqual({ allowed: false, retryAfterMs: expect.any(Number) });
    }
    redisCli(['SET', 'test:{poisoned}', 'not a bucket']);
    expect(await store.take('poisoned', bucket, 3)).toEqual({ allowed: true });
  });

  it('takes one late answer for a miss, not an outage; a decision that cannot be asked twice is not waited for past its deadline', async () => {
    const deadlines = recordedAlarms();
    const timed = await open({ alarm: deadlines.alarm });
    // Shown to serve: every call of the probe answered.
    await eventually(() => expect(timed.sharing).toBe(true));
    deadlines.forgetSilenced();
    let release = proxy.hold();
    const claiming = timed.claimWindow(claim('w', 'a'));
    // The claim, and beside it the read of where purges are: two calls, each under its deadline.
    await eventually(() => expect(deadlines.count).toBe(2));
    deadlines.ringFrom(0);
    expect(await claiming).toEqual({ outcome: 'missed', stored: undefined });
    release();
    await proxy.drained();
    // The late claim took the lock; asked again with its id, it is found to be this claim's.
    expect(await timed.claimWindow(claim('w', 'a'))).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
    // Tokens taken from a bucket: asking again would take twice. Unanswered by its deadline, the take reads as no
    // answer (the caller decides alone) at once, while its answer is still held back.
    release = proxy.hold();
    const set = deadlines.count;
    const taking = timed.take('bucket', { burst: 1, perMinute: 1 }, 1);
    await eventually(() => expect(deadlines.count).toBe(set + 1));
    deadlines.ringFrom(set);
    expect(await within(taking, SAFETY_MS, 'the late take to read as no answer')).toBeUndefined();
    release();
    await proxy.drained();
    // The late answer took the bucket's only token.
    expect(await timed.take('bucket', { burst: 1, perMinute: 1 }, 1)).toEqual({ allowed: false, retryAfterMs: expect.any(Number) });
    expect(timed.sharing).toBe(true);
    expect(log.count(OUTAGE)).toBe(0);
  });

  it('takes a Redis whose every answer comes late for away once the misses span the window: logged once, then asked nothing', async () => {
    // Late, however little: a Redis that always answers past the deadline would have every request wait for it.
    proxy.delayMs = DEFAULT_REDIS_COMMAND_TIMEOUT_MS + 150;
    const outage = log.next(OUTAGE);
    const outcomes: string[] = [];
    const calling = (async () => {
      for (let i = 0; store.sharing; i++) outcomes.push((await store.claimWindow(claim(`late ${i}`, 'a'))).outcome);
    })();
    await within(outage, SAFETY_MS, 'Redis answering late to be taken for away');
    await calling;
    expect(outcomes.length).toBeGreaterThan(1);
    expect(outcomes).not.toContain('taken');
    expect(store.state).toEqual({ state: 'unavailable' });
    // No call is made now: none waits for a late answer.
    const writes = proxy.writes;
    expect(await store.take('bucket', { burst: 1, perMinute: 1 }, 1)).toBeUndefined();
    expect(proxy.writes).toBe(writes);
    // Answers in time again: the probe finds it back.
    const back = log.next(BACK);
    proxy.delayMs = 0;
    await within(back, SAFETY_MS, 'Redis answering in time to be found back');
    expect(log.count(OUTAGE)).toBe(1);
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
    await store.publishWindow('w', 'before', 0, 60_000, undefined, { tags: [], seen: BEFORE_ANY_PURGE });
    const outage = log.next(OUTAGE);
    await redis.kill();
    await within(outage, SAFETY_MS, 'the outage to be noticed');
    expect(await store.claimWindow(claim('w', 'a'))).toEqual({ outcome: 'unavailable', stored: undefined });
    const back = log.next(BACK);
    await redis.restart();
    await within(back, SAFETY_MS, 'Redis to be found back');
    await store.publishWindow('w', 'after', 0, 60_000, undefined, { tags: [], seen: BEFORE_ANY_PURGE });
    expect(await store.claimWindow(claim('w', 'a'))).toMatchObject({ outcome: 'fresh', stored: { value: 'after' } });
    expect(log.count(OUTAGE)).toBe(1);
  });

  it('refuses a wrong password, said once with the setting to change and never its value, and shares with the right one', async () => {
    const guarded = await startRedisServer({ password: 's3cret-redis-password' });
    try {
      const wrong = new URL(guarded.url);
      wrong.password = 'wrong-redis-password';
      const refusedLog = collectedLog();
      const refused = await open({ url: wrong.href, log: refusedLog });
      expect(refused.state).toMatchObject({ state: 'refused', refusal: { cause: 'wrong_password', setting: 'REDIS_URL' } });
      expect((await refused.claimWindow(claim('a', 'a'))).outcome).toBe('unavailable');
      expect(refusedLog.count(REFUSED)).toBe(1);
      expect(refusedLog.count('sharing the upstream state')).toBe(0);
      expect(JSON.stringify(refusedLog.lines)).not.toContain('wrong-redis-password');
      const right = await open({ url: guarded.url });
      await right.publishWindow('a', 'x', 0, 1_000, undefined, { tags: [], seen: BEFORE_ANY_PURGE });
      expect(await right.claimWindow(claim('a', 'a'))).toMatchObject({ outcome: 'fresh', stored: { value: 'x' } });
      expect(JSON.stringify(log.lines)).not.toContain('s3cret-redis-password');
    } finally {
      for (const closing of opened.splice(1)) await closing.close();
      await guarded.stop();
    }
  });
});
