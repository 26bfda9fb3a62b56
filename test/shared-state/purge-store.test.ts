import { EventEmitter, once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BEFORE_ANY_PURGE, PURGE_LOG_LENGTH } from '../../src/shared-state/purge-scripts.js';
import { MISSED, RedisConnection } from '../../src/shared-state/redis-connection.js';
import { PURGE_PAGE } from '../../src/shared-state/redis-purges.js';
import { ALL_TAG, companyTag, jurisdictionTag } from '../../src/upstream/cache-tags.js';
import type { StorePurge } from '../../src/upstream/shared-store.js';
import { redisStorePerTest } from '../support/redis-server.js';
import { eventually, SAFETY_MS, within } from '../support/within.js';

const { store, clock, cli } = redisStorePerTest();

const KEEP_MS = 60_000;
const ZEBRA = companyTag('GB', '09876543');
const ACME = companyTag('GB', '01234567');

/** A window stored as an instance publishes one: under the tags of what it holds, with where its claim found the log of purges. */
function publish(key: string, tags: string[], purgesSeen = BEFORE_ANY_PURGE): Promise<void> {
  return store().publishWindow(key, `window ${key}`, 0, KEEP_MS, undefined, {
    tags: [ALL_TAG, jurisdictionTag('GB'), ...tags],
    seen: purgesSeen,
  });
}

/** Where the log of purges is, as a claim of `key`'s fetch finds it. */
async function claimed(key: string): Promise<string> {
  const claim = await store().claimWindow({
    key,
    lockId: key,
    lockMs: 60_000,
    freshMs: 1_000,
  });
  return claim.purges!;
}

function stored(key: string): boolean {
  return cli('EXISTS', `test:{${key}}`).trim() === '1';
}

function purge(tag: string): Promise<StorePurge | undefined> {
  return store().purge(tag, KEEP_MS);
}

/** Every script the store sends, run on Redis as it is; `answer` may replace what the store is told. */
function scriptsSent(answer: (n: number, reply: unknown) => unknown = (_, reply) => reply): unknown[] {
  const replies: unknown[] = [];
  const send = RedisConnection.prototype.script;
  vi.spyOn(RedisConnection.prototype, 'script').mockImplementation(async function (this: RedisConnection, ...call) {
    const reply = await send.apply(this, call);
    replies.push(reply);
    return answer(replies.length, reply);
  });
  return replies;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('purges on the fleet store', () => {
  it('drop every window stored under the tag, and no other', async () => {
    await publish('w:zebra', [ZEBRA]);
    await publish('w:both', [ZEBRA, ACME]);
    await publish('w:acme', [ACME]);
    expect(await purge(ZEBRA)).toEqual({ windows: 2, position: { log: expect.any(String), sequence: 1 } });
    expect(['w:zebra', 'w:both', 'w:acme'].map(stored)).toEqual([false, false, true]);
    // Nothing left under the tag: a second purge drops nothing.
    expect((await purge(ZEBRA))?.windows).toBe(0);
    expect((await purge(jurisdictionTag('GB')))?.windows).toBe(1);
  });

  it('drop every window when sent again after any of their steps ran on Redis but its answer was lost', async () => {
    // Each step in turn: the first (the mark), a page read, a window dropped, the page taken out, the log.
    for (let lost = 1; ; lost += 1) {
      const [zebra, acme] = [`w:zebra${lost}`, `w:acme${lost}`];
      await publish(zebra, [ZEBRA], await claimed(zebra));
      await publish(acme, [ACME], await claimed(acme));
      expect([zebra, acme].map(stored)).toEqual([true, true]);
      let steps = 0;
      scriptsSent((n, reply) => {
        steps = n;
        return n === lost ? MISSED : reply;
      });
      const first = await purge(ZEBRA);
      vi.restoreAllMocks();
      if (steps < lost) {
        // Every step answered: the purge was whole.
        expect(first?.windows).toBe(1);
        break;
      }
      expect(first).toBeUndefined();
      // FleetPurges sends a purge not answered again: it drops what the first left on Redis.
      await purge(ZEBRA);
      expect([zebra, acme].map(stored), `answer ${lost} lost`).toEqual([false, true]);
    }
  });

  it('read a large index a page at a time, and drop every window in it', async () => {
    const count = 2 * PURGE_PAGE + 7;
    // Windows stored and indexed as publishes leave them, made in one script so as not to publish them one by one.
    cli(
      'EVAL',
      `for i = 1, ${count} do
         redis.call('SET', 'test:{w:n' .. i .. '}', 'window')
         redis.call('ZADD', KEYS[1], ARGV[1], 'test:{w:n' .. i .. '}')
       end`,
      '1',
      `test:{purges}x:${ALL_TAG}`,
      String(clock()() + KEEP_MS),
    );
    const replies = scriptsSent();
    expect((await purge(ALL_TAG))?.windows).toBe(count);
    expect(cli('KEYS', 'test:{w:n*}').trim()).toBe('');
    // Every answer the purge was sent holds one page at most (a window key and its score per entry).
    const longest = Math.max(...replies.map((reply) => (Array.isArray(reply) ? reply.length : 1)));
    expect(longest).toBeLessThanOrEqual(2 * PURGE_PAGE);
    expect(cli('EXISTS', `test:{purges}x:${ALL_TAG}`).trim()).toBe('0');
  });

  it('keep a window whose fetch was claimed before the purge from being stored after it, and store one claimed after', async () => {
    await purge(ACME);
    const [before, other] = [await claimed('w:before'), await claimed('w:other')];
    await purge(ZEBRA);
    const after = await claimed('w:after');
    await publish('w:before', [ZEBRA], before);
    await publish('w:after', [ZEBRA], after);
    // Claimed before the purge too, but holding none of its companies.
    await publish('w:other', [ACME], other);
    expect(['w:before', 'w:after', 'w:other'].map(stored)).toEqual([false, true, true]);
    // A purge of everything keeps out whatever was claimed before it, whatever it holds.
    const late = await claimed('w:late');
    await purge(ALL_TAG);
    await publish('w:late', [ACME], late);
    expect(stored('w:late')).toBe(false);
  });

  it('keep out a window claimed before the log of purges began, or before Redis lost it', async () => {
    const first = await claimed('w:first');
    await purge(ACME);
    await publish('w:first', [ZEBRA], first);
    const lost = await claimed('w:lost');
    cli('DEL', 'test:{purges}state');
    await purge(ACME);
    await publish('w:lost', [ZEBRA], lost);
    expect(['w:first', 'w:lost'].map(stored)).toEqual([false, false]);
  });

  it("never touch the fleet's token, holds, budget or rate limits", async () => {
    await store().publishToken({ value: 'token', refreshInMs: 60_000, expiresInMs: 120_000 }, undefined);
    await store().take('rate:client', { burst: 10, perMinute: 60 }, 3);
    await store().hold('another instance', 30_000, true);
    await publish('w:zebra', [ZEBRA]);
    const before = cli('KEYS', 'test:*')
      .split('\n')
      .filter((key) => !key.startsWith('test:{w:') && !key.startsWith('test:{purges}x:'))
      .sort();
    // An index holding a key no gateway writes for a window (planted by hand): the purge drops only windows.
    cli('ZADD', `test:{purges}x:${ALL_TAG}`, String(Date.now() + KEEP_MS), 'test:{fleet}token');
    await purge(ALL_TAG);
    const after = cli('KEYS', 'test:*').split('\n');
    for (const key of before) expect(after).toContain(key);
    expect(await store().claimToken({ lockId: 'l', lockMs: 1_000, skip: [] })).toMatchObject({ outcome: 'token' });
  });

  it('keep an index per tag no longer than its windows live, and drop its expired entries as it gains new ones', async () => {
    await publish('w:first', [ZEBRA]);
    expect(Number(cli('PTTL', `test:{purges}x:${ZEBRA}`))).toBeGreaterThan(KEEP_MS - 5_000);
    clock().advance(KEEP_MS + 1);
    await publish('w:second', [ZEBRA]);
    expect(cli('ZRANGE', `test:{purges}x:${ZEBRA}`, '0', '-1').trim().split('\n')).toEqual(['test:{w:second}']);
  });

  it('are read back from the log in order by an instance behind, and as a gap past what the log keeps or after Redis lost it', async () => {
    const start = await store().purgesSince(undefined);
    expect(start).toEqual({ position: { log: '', sequence: 0 }, tags: [] });
    await purge(ZEBRA);
    await purge(ACME);
    const read = await store().purgesSince(start!.position);
    expect(read).toEqual({ position: { log: expect.any(String), sequence: 2 }, tags: [ZEBRA, ACME] });
    expect(await store().purgesSince(read!.position)).toEqual({ position: read!.position, tags: [] });

    // The log keeps the last purges (PURGE_LOG_LENGTH): shortened by hand to one, an instance two behind has missed one.
    cli('LTRIM', 'test:{purges}log', '0', '0');
    expect(await store().purgesSince({ log: read!.position.log, sequence: 0 })).toEqual({ position: read!.position, gap: true });
    expect(await store().purgesSince({ log: read!.position.log, sequence: 1 })).toEqual({ position: read!.position, tags: [ACME] });
    // Redis restarted empty: another log, whatever its sequence.
    cli('DEL', 'test:{purges}state', 'test:{purges}log');
    await purge(ZEBRA);
    const after = await store().purgesSince(read!.position);
    expect(after).toMatchObject({ gap: true, position: { sequence: 1 } });
    expect(after?.position.log).not.toBe(read!.position.log);
  });

  it('read a log written longer than it keeps (by hand) as a gap, never as more purges than it keeps', async () => {
    await purge(ZEBRA);
    const { position } = (await store().purgesSince(undefined))!;
    const count = PURGE_LOG_LENGTH + 2;
    // Entries in order, newest first, as the gateway writes them, only more of them, and a state that counts them.
    cli('DEL', 'test:{purges}log');
    cli('LPUSH', 'test:{purges}log', ...Array.from({ length: count }, (_, i) => `${i + 1} ${ZEBRA}`));
    cli('HSET', 'test:{purges}state', 'logged', String(count));
    expect(await store().purgesSince({ log: position.log, sequence: 0 })).toEqual({
      position: { log: position.log, sequence: count },
      gap: true,
    });
    expect(await store().purgesSince({ log: position.log, sequence: 2 })).toMatchObject({ tags: expect.any(Array) });
  });

  it('tell every instance listening, at once', async () => {
    const told = new EventEmitter();
    store().onPurge(() => told.emit('purge'));
    // The listening connection is set up in the background: Redis counts it once it listens.
    await eventually(() => expect(cli('PUBSUB', 'SHARDNUMSUB', 'test:{purges}purged').split('\n')[1]).toBe('1'));
    const heard = within(once(told, 'purge'), SAFETY_MS, 'a purge notice');
    await purge(ZEBRA);
    await heard;
  });
});
