import { EventEmitter, once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { BEFORE_ANY_PURGE, PURGE_SCRIPTS } from '../../src/shared-state/purge-scripts.js';
import { RedisStore } from '../../src/shared-state/redis-store.js';
import { ALL_SCRIPTS } from '../../src/shared-state/scripts.js';
import { ALL_TAG } from '../../src/upstream/cache-tags.js';
import { collectedLog } from '../support/log-lines.js';
import { documentedAclUser } from '../support/redis-acl.js';
import { redisCli } from '../support/redis-cli.js';
import { type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { redisTarget } from '../support/redis-server.js';
import { eventually, SAFETY_MS, within } from '../support/within.js';

const PASSWORD = 'cluster-password-0123';
const ADMISSION = { holder: 'this instance', longestHoldMs: 60_000 };
/** Windows and clients enough that, spread by their own hash tags, each of three masters holds some. */
const SPREAD = 30;

let cluster: RedisCluster;
beforeAll(async () => {
  // Three masters, as an operator's first cluster (redis-cli --cluster create, no replicas).
  cluster = await startRedisCluster({ replicas: false });
  for (const port of cluster.ports) {
    await redisCli(port, ...documentedAclUser('gateway', PASSWORD));
    // Every command run, with its arguments, kept: which scripts ran on which master.
    await redisCli(port, 'CONFIG', 'SET', 'slowlog-log-slower-than', '0', 'slowlog-max-len', '100000');
  }
}, SAFETY_MS);
afterAll(() => cluster?.stop());

/** The digests EVALSHA was run with on the master on `port`, and how many keys the key `pattern` matches there. */
async function onMaster(port: number, pattern: string): Promise<{ digests: string[]; keys: number }> {
  const slowlog = (await redisCli(port, 'SLOWLOG', 'GET', '-1')).split('\n');
  const digests = slowlog.flatMap((line, i) => (/^evalsha$/i.test(line) ? [slowlog[i + 1]!] : []));
  const keys = (await redisCli(port, '--scan', '--pattern', pattern)).split('\n').filter(Boolean).length;
  return { digests, keys };
}

describe('the shared store on a Redis Cluster', () => {
  it('runs every script on three masters, as the documented ACL user, each on one hash slot, windows and buckets spread over the masters, purges told on a sharded channel', async () => {
    // The cluster refuses a script across hash slots: a script that ran here named keys of one slot.
    expect(await redisCli(cluster.ports[0]!, '-c', 'EVAL', 'return 1', '2', 'csg:{a}', 'csg:{b}')).toContain('CROSSSLOT');
    const log = collectedLog();
    // One node named: the others are discovered.
    const store = await RedisStore.open({
      target: redisTarget(`redis-cluster://gateway:${PASSWORD}@127.0.0.1:${cluster.ports[0]}`),
      keyPrefix: 'csg:',
      commandTimeoutMs: readConfig({}).redisCommandTimeoutMs,
      log,
    });
    try {
      await eventually(() => expect(store.state).toEqual({ state: 'sharing' }));
      const claim = (key: string, lockId: string) => store.claimWindow({ key, lockId, lockMs: 60_000, freshMs: 60_000 });
      for (let i = 0; i < SPREAD; i++) {
        expect(await claim(`w:${i}`, 'a')).toEqual({ outcome: 'taken', stored: undefined, purges: BEFORE_ANY_PURGE });
        expect(await claim(`w:${i}`, 'b')).toEqual({ outcome: 'held', stored: undefined, purges: BEFORE_ANY_PURGE });
        await store.publishWindow(`w:${i}`, `window ${i}`, 0, 60_000, 'a', { tags: [ALL_TAG], seen: BEFORE_ANY_PURGE });
        expect(await claim(`w:${i}`, 'b')).toMatchObject({ outcome: 'fresh', stored: { value: `window ${i}` } });
        expect(await store.take(`rl:${i}`, { burst: 1, perMinute: 1 }, 1)).toEqual({ allowed: true });
        expect(await store.take(`rl:${i}`, { burst: 1, perMinute: 1 }, 1)).toMatchObject({ allowed: false });
      }
      expect(await claim('released', 'a')).toMatchObject({ outcome: 'taken' });
      await store.releaseWindow('released', 'a');
      expect(await claim('released', 'b')).toMatchObject({ outcome: 'taken' });

      const token = { lockId: 'a', lockMs: 60_000, skip: [] };
      expect(await store.claimToken(token)).toEqual({ outcome: 'taken' });
      await store.releaseToken('a');
      expect(await store.claimToken({ ...token, lockId: 'b' })).toEqual({ outcome: 'taken' });
      await store.publishToken({ value: 'token', refreshInMs: 60_000, expiresInMs: 120_000 }, 'b');
      expect(await store.claimToken({ ...token, lockId: 'c' })).toMatchObject({ outcome: 'token', token: { value: 'token' } });
      await store.dropToken('token');
      await store.refuseCredentials(60_000);
      expect(await store.claimToken({ ...token, lockId: 'c' })).toEqual({ outcome: 'refused' });

      const budget = { key: 'upstream:budget', shape: { burst: 1, perMinute: 1 }, reserve: 0 };
      expect(await store.admit({ ...ADMISSION, budget })).toEqual({ outcome: 'allowed' });
      expect(await store.admit({ ...ADMISSION, budget })).toMatchObject({ outcome: 'held back', reason: 'budget_spent' });
      await store.hold('another instance', 60_000, true);
      expect(await store.admit(ADMISSION)).toMatchObject({ outcome: 'held back', reason: 'rate_limited' });

      const masters = await cluster.masters();
      // Each master holds windows and buckets of its own: their tags spread them.
      const windows = await Promise.all(masters.map((port) => onMaster(port, 'csg:{w:*}')));
      const buckets = await Promise.all(masters.map((port) => onMaster(port, 'csg:{rl:*}')));
      expect(windows.map(({ keys }) => keys > 0)).toEqual([true, true, true]);
      expect(buckets.map(({ keys }) => keys > 0)).toEqual([true, true, true]);

      // A purge: its keys in one slot, the windows it drops on every master, the fleet told on the sharded channel
      // (SPUBLISH from the script, in the purge keys' slot; SSUBSCRIBE on the master of that slot).
      const told = new EventEmitter();
      store.onPurge(() => told.emit('purge'));
      const listening = async () => {
        const counts = await Promise.all(masters.map((port) => redisCli(port, 'PUBSUB', 'SHARDNUMSUB', 'csg:{purges}purged')));
        return counts.reduce((sum, count) => sum + Number(count.trim().split('\n')[1]), 0);
      };
      await eventually(async () => expect(await listening()).toBe(1));
      const before = await claim('w:0', 'before the purge');
      const heard = within(once(told, 'purge'), SAFETY_MS, 'a purge notice on the sharded channel');
      const purged = await store.purge(ALL_TAG, 60_000);
      expect(purged).toEqual({ windows: SPREAD, position: { log: expect.any(String), sequence: 1 } });
      await heard;
      expect(await store.purgesSince({ log: purged!.position.log, sequence: 0 })).toEqual({ position: purged!.position, tags: [ALL_TAG] });
      const left = await Promise.all(masters.map((port) => onMaster(port, 'csg:{w:*}')));
      expect(left.map(({ keys }) => keys)).toEqual([0, 0, 0]);
      // A fetch claimed before the purge is not stored after it: the window's tombstone, in its own slot, says so.
      await store.publishWindow('w:0', 'stale window', 0, 60_000, 'before the purge', { tags: [ALL_TAG], seen: before.purges! });
      expect(await claim('w:0', 'after the purge')).toMatchObject({ outcome: 'taken', stored: undefined });

      const seen = await Promise.all(masters.map((port) => onMaster(port, 'csg:{*')));
      expect(new Set(seen.flatMap(({ digests }) => digests))).toEqual(
        new Set([...ALL_SCRIPTS, ...PURGE_SCRIPTS].map((script) => script.sha1)),
      );
      expect(log.count('Redis refused a command')).toBe(0);
      expect(log.count('Could not listen on a Redis channel')).toBe(0);
      expect(store.state).toEqual({ state: 'sharing' });
    } finally {
      await store.close();
    }
  });
});
