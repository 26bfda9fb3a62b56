import { EventEmitter, once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { RedisStore } from '../../src/shared-state/redis-store.js';
import { ALL_TAG } from '../../src/upstream/cache-tags.js';
import { collectedLog } from '../support/log-lines.js';
import { redisCli } from '../support/redis-cli.js';
import { type RedisSentinels, startRedisSentinels } from '../support/redis-sentinel.js';
import { redisTarget } from '../support/redis-server.js';
import { eventually, SAFETY_MS, within } from '../support/within.js';

const CHANNEL = 'csg:{purges}purged';

let sentinels: RedisSentinels;
beforeAll(async () => {
  sentinels = await startRedisSentinels();
}, SAFETY_MS);
afterAll(() => sentinels?.stop());

/** How many connections listen on the purges' sharded channel on the Redis node on `port`. */
async function listeners(port: number): Promise<number> {
  return Number((await redisCli(port, 'PUBSUB', 'SHARDNUMSUB', CHANNEL)).trim().split('\n')[1]);
}

describe('purges through Sentinel', () => {
  it("are told on the master's sharded channel, and still after a failover", async () => {
    const log = collectedLog();
    const store = await RedisStore.open({
      target: redisTarget(sentinels.url),
      keyPrefix: 'csg:',
      commandTimeoutMs: readConfig({}).redisCommandTimeoutMs,
      log,
    });
    try {
      await eventually(() => expect(store.state).toEqual({ state: 'sharing' }));
      const told = new EventEmitter();
      store.onPurge(() => told.emit('purge'));
      await eventually(async () => expect(await listeners(await sentinels.master())).toBe(1));
      const heard = within(once(told, 'purge'), SAFETY_MS, 'a purge notice');
      expect(await store.purge(ALL_TAG, 60_000)).toMatchObject({ position: { sequence: 1 } });
      await heard;

      const { to } = await sentinels.failover();
      // node-redis's sentinel client listens again on the new master.
      await eventually(async () => expect(await listeners(to)).toBe(1));
      await eventually(() => expect(store.state).toEqual({ state: 'sharing' }));
      const again = within(once(told, 'purge'), SAFETY_MS, 'a purge notice after the failover');
      await eventually(async () => expect(await store.purge(ALL_TAG, 60_000)).toMatchObject({ position: { sequence: 2 } }));
      await again;
      expect(log.count('Could not listen on a Redis channel')).toBe(0);
    } finally {
      await store.close();
    }
  });
});
