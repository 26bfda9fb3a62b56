import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import type { RedisRefusalCause } from '../../src/shared-state/redis-refusals.js';
import { BEFORE_ANY_PURGE } from '../../src/shared-state/purge-scripts.js';
import { RedisStore } from '../../src/shared-state/redis-store.js';
import { collectedLog, type CollectedLog } from '../support/log-lines.js';
import { redisCli } from '../support/redis-cli.js';
import { RedisGroup, redisTarget, serverArgs } from '../support/redis-server.js';
import { eventually, SAFETY_MS, within } from '../support/within.js';

const REFUSED = 'Redis refuses what sharing needs';
const SHARING = 'sharing the upstream state';

let group: RedisGroup;
let log: CollectedLog;
const opened: RedisStore[] = [];
beforeEach(async () => {
  group = await RedisGroup.create('refusals');
  log = collectedLog();
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  await group.remove();
});

/** Starts redis-server (`extra` arguments after the usual ones) on a free port; its port. */
function server(extra: string[] = []): Promise<number> {
  return group.onFreePorts(1, async ([port]) => {
    await group.start(port!, [...serverArgs(port!), ...extra]);
    return port!;
  });
}

async function open(url: string): Promise<RedisStore> {
  const store = await RedisStore.open({
    target: redisTarget(url),
    keyPrefix: 'csg:',
    commandTimeoutMs: readConfig({}).redisCommandTimeoutMs,
    log,
  });
  opened.push(store);
  return store;
}

/** Resolves once the store says Redis refuses it for `cause`, and checks that it said so once, naming REDIS_URL, and never "sharing". */
async function refusedFor(store: RedisStore, cause: RedisRefusalCause, setting = 'REDIS_URL'): Promise<void> {
  await within(log.next(`${REFUSED} (${cause})`, 1), SAFETY_MS, `Redis's refusal (${cause}) to be said`);
  expect(store.state).toMatchObject({ state: 'refused', refusal: { cause, setting } });
  expect(log.lines.filter((line) => line.message.includes(REFUSED))).toEqual([
    expect.objectContaining({ level: 'warn', details: expect.objectContaining({ cause, setting, fix: expect.any(String) }) }),
  ]);
  expect(log.count(SHARING)).toBe(0);
  // Nothing is asked of a Redis that refuses: every call reads as nothing shared, and the instance goes on alone.
  expect(await store.claimWindow({ key: 'w', lockId: 'a', lockMs: 1_000, freshMs: 1_000 })).toEqual({
    outcome: 'unavailable',
    stored: undefined,
  });
}

const CLAIM = { key: 'w', lockId: 'a', lockMs: 60_000, freshMs: 60_000 };

describe('a Redis that answers and refuses what sharing needs', () => {
  it('a read-only replica: refused until it is made a master', async () => {
    const master = await server();
    const replica = await server(['--replicaof', '127.0.0.1', String(master)]);
    const store = await open(`redis://127.0.0.1:${replica}`);
    await refusedFor(store, 'read_only_replica');
    // Asked for before the promotion: a probe may find it, and say so, before redis-cli has exited.
    const shared = log.next(SHARING);
    await redisCli(replica, 'REPLICAOF', 'NO', 'ONE');
    await within(shared, SAFETY_MS, 'the promoted replica to be shared through');
    expect(store.state).toEqual({ state: 'sharing' });
    expect(await store.claimWindow(CLAIM)).toMatchObject({ outcome: 'taken' });
  });

  it('an ACL user that loses a command the scripts run: refused from its next call, and shared through again once granted it', async () => {
    const port = await server();
    await redisCli(port, 'ACL', 'SETUSER', 'gateway', 'on', '>acl-password-0123', '~csg:*', '+@all');
    const store = await open(`redis://gateway:acl-password-0123@127.0.0.1:${port}`);
    await eventually(() => expect(store.state).toEqual({ state: 'sharing' }));
    await redisCli(port, 'ACL', 'SETUSER', 'gateway', '-hset');
    // A window stored: the script that stores it runs HSET.
    await store.publishWindow('w', 'window', 0, 60_000, undefined, { tags: [], seen: BEFORE_ANY_PURGE });
    expect(store.state).toMatchObject({ state: 'refused', refusal: { cause: 'no_permission' } });
    expect(log.count(`${REFUSED} (no_permission)`)).toBe(1);
    expect(JSON.stringify(log.lines)).not.toContain('acl-password-0123');
    const back = log.next('Redis is back');
    await redisCli(port, 'ACL', 'SETUSER', 'gateway', '+hset');
    await within(back, SAFETY_MS, 'sharing again once the permission is back');
    expect(await store.claimWindow(CLAIM)).toMatchObject({ outcome: 'taken' });
  });

  it('a Redis at its maxmemory that evicts nothing: refused, naming the Redis setting, until it has room', async () => {
    const port = await server(['--maxmemory', '1', '--maxmemory-policy', 'noeviction']);
    const store = await open(`redis://127.0.0.1:${port}`);
    await refusedFor(store, 'out_of_memory', 'maxmemory-policy (Redis)');
    const shared = log.next(SHARING);
    await redisCli(port, 'CONFIG', 'SET', 'maxmemory', '0');
    await within(shared, SAFETY_MS, 'sharing once Redis has room');
  });

  it('one node named as a cluster (redis-cluster://)', async () => {
    const port = await server();
    await refusedFor(await open(`redis-cluster://127.0.0.1:${port}`), 'not_cluster');
  });

  it('one node named as sentinels (redis-sentinel://)', async () => {
    const port = await server();
    await refusedFor(await open(`redis-sentinel://127.0.0.1:${port}/mymaster`), 'not_sentinel');
  });

  describe('a sentinel', () => {
    let sentinel: number;
    beforeEach(async () => {
      const master = await server();
      sentinel = await group.onFreePorts(1, async ([port]) => {
        const file = join(group.dir, 'sentinel.conf');
        await writeFile(file, `port ${port}\nbind 127.0.0.1\nsentinel monitor mymaster 127.0.0.1 ${master} 1\n`);
        await group.start(port!, [file, '--sentinel']);
        return port!;
      });
    });

    it('asked for a master it does not monitor', async () => {
      await refusedFor(await open(`redis-sentinel://127.0.0.1:${sentinel}/othermaster`), 'unknown_master');
    });

    it('named as a Redis node (redis://): it runs no scripts', async () => {
      await refusedFor(await open(`redis://127.0.0.1:${sentinel}`), 'no_scripts');
    });
  });
});
