import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FleetPurges,
  type FleetPurgesOptions,
  MAX_PENDING_PURGES,
  MAX_TAGS_APPLIED_ONE_BY_ONE,
  PURGE_CHECK_INTERVAL_MS,
} from '../../../src/gateway/admin/fleet-purges.js';
import { createLogger } from '../../../src/gateway/logger.js';
import { RedisStore } from '../../../src/shared-state/redis-store.js';
import { ALL_TAG, companyTag } from '../../../src/upstream/cache-tags.js';
import { recordedAlarms, type RecordedAlarms } from '../../support/recorded-alarms.js';
import { startRedisProxy, type RedisProxy } from '../../support/redis-proxy.js';
import { redisTarget, startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { eventually } from '../../support/within.js';

const ZEBRA = companyTag('GB', '09876543');
const ACME = companyTag('GB', '01234567');

/** One instance as purges see it: its store (through a proxy of its own), the tags its caches were told to drop, its log. */
interface Instance {
  proxy: RedisProxy;
  store: RedisStore;
  purges: FleetPurges;
  dropped: string[];
  logs: string[];
  alarms: RecordedAlarms;
}

let redis: RedisServer;
const instances: Instance[] = [];

beforeEach(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  for (const { purges, store, proxy } of instances.splice(0)) {
    purges.close();
    await store.close();
    await proxy.close();
  }
  await redis.stop();
});

/**
 * An instance; `told: false` drops Redis's notices, as a connection lost and not yet noticed does; `away: true`
 * starts it with its network to Redis cut.
 */
async function instance({ told = true, away = false } = {}): Promise<Instance> {
  const proxy = await startRedisProxy(redis.url);
  if (away) proxy.cut();
  const logs: string[] = [];
  const logger = createLogger('info', { write: (line: string) => logs.push(line) });
  const store = await RedisStore.open({ target: redisTarget(proxy.url), keyPrefix: 'test:', commandTimeoutMs: 250, log: logger });
  const heard: FleetPurgesOptions['store'] = told
    ? store
    : { purge: (tag, keep) => store.purge(tag, keep), purgesSince: (at) => store.purgesSince(at), onPurge: () => {} };
  const dropped: string[] = [];
  const alarms = recordedAlarms();
  const purges = new FleetPurges({
    store: heard,
    caches: {
      purge(tag) {
        dropped.push(tag);
        return { windows: 1, answers: 1 };
      },
    },
    log: logger,
    windowKeepMs: 60_000,
    alarm: alarms.alarm,
  });
  await purges.start();
  const made = { proxy, store, purges, dropped, logs, alarms };
  instances.push(made);
  return made;
}

/** Rings the instance's next read of the log, and waits until that read is done. */
async function readLog(target: Instance): Promise<void> {
  const count = target.alarms.count;
  target.alarms.ringFrom(count - 1);
  await target.purges.check();
}

function logged(target: Instance, text: string): number {
  return target.logs.filter((line) => line.includes(text)).length;
}

describe('purges followed by each instance', () => {
  it(`reach an instance that missed Redis's notice at its next read of the log, every ${PURGE_CHECK_INTERVAL_MS} ms`, async () => {
    const [purging, deaf] = [await instance(), await instance({ told: false })];
    expect(deaf.alarms.count).toBe(1);
    await purging.purges.purge(ZEBRA, { address: 'test' });
    expect(purging.dropped).toEqual([ZEBRA]);
    expect(deaf.dropped).toEqual([]);
    await readLog(deaf);
    expect(deaf.dropped).toEqual([ZEBRA]);
    // The next read is set again, a read interval on.
    expect(deaf.alarms.count).toBe(2);
  });

  it('are applied in the order they were made, each once', async () => {
    const [purging, deaf] = [await instance(), await instance({ told: false })];
    await purging.purges.purge(ZEBRA, {});
    await purging.purges.purge(ACME, {});
    await purging.purges.purge(ZEBRA, {});
    await readLog(deaf);
    await readLog(deaf);
    expect(deaf.dropped).toEqual([ZEBRA, ACME, ZEBRA]);
    expect(purging.dropped).toEqual([ZEBRA, ACME, ZEBRA]);
  });

  it('drop everything an instance holds when it missed more than the log keeps', async () => {
    const [purging, deaf] = [await instance(), await instance({ told: false })];
    await purging.purges.purge(ZEBRA, {});
    await purging.purges.purge(ACME, {});
    execFileSync('redis-cli', ['-p', new URL(redis.url).port, 'LTRIM', 'test:{purges}log', '0', '0']);
    await readLog(deaf);
    expect(deaf.dropped).toEqual([ALL_TAG]);
    expect(logged(deaf, 'missed more purges than the fleet keeps')).toBe(1);
  });

  it(`drop everything once, rather than walk the caches for each, when more than ${MAX_TAGS_APPLIED_ONE_BY_ONE} purges are new at once`, async () => {
    const [purging, deaf] = [await instance(), await instance({ told: false })];
    const tags = Array.from({ length: MAX_TAGS_APPLIED_ONE_BY_ONE }, (_, i) => companyTag('GB', String(i)));
    for (const tag of tags) await purging.purges.purge(tag, {});
    await readLog(deaf);
    expect(deaf.dropped).toEqual(tags);
    for (const tag of [...tags, ZEBRA]) await purging.purges.purge(tag, {});
    await readLog(deaf);
    expect(deaf.dropped).toEqual([...tags, ALL_TAG]);
    expect(logged(deaf, `${MAX_TAGS_APPLIED_ONE_BY_ONE + 1} purges were new here at once`)).toBe(1);
  });

  it('made while Redis is away reach the fleet each once, in order, when a read of the log and a purge send them together', async () => {
    const [purging, other] = [await instance(), await instance({ told: false })];
    purging.proxy.cut();
    await eventually(() => expect(purging.store.sharing).toBe(false));
    await purging.purges.purge(ZEBRA, {});
    await purging.purges.purge(companyTag('GB', '1'), {});
    purging.proxy.restore();
    await eventually(() => expect(purging.store.sharing).toBe(true));
    await Promise.all([purging.purges.check(), purging.purges.purge(ACME, {})]);
    await readLog(other);
    expect(other.dropped).toEqual([ZEBRA, companyTag('GB', '1'), ACME]);
    expect(logged(purging, 'Purge made while Redis was away sent to the fleet')).toBe(2);
  });

  it('made while Redis is away drop only this instance, and reach the fleet once Redis is back', async () => {
    const [purging, other] = [await instance(), await instance({ told: false })];
    purging.proxy.cut();
    await eventually(() => expect(purging.store.sharing).toBe(false));
    const outcome = await purging.purges.purge(ZEBRA, {});
    expect(outcome).toEqual({ tag: ZEBRA, memory: { windows: 1, answers: 1 }, shared: undefined, fleet: true });
    await readLog(other);
    expect(other.dropped).toEqual([]);

    purging.proxy.restore();
    await eventually(() => expect(purging.store.sharing).toBe(true));
    await readLog(purging);
    expect(logged(purging, 'Purge made while Redis was away sent to the fleet')).toBe(1);
    await readLog(other);
    expect(other.dropped).toEqual([ZEBRA]);
  });

  it(`keep at most ${MAX_PENDING_PURGES} purges while Redis is away, then one of everything`, async () => {
    const [purging, other] = [await instance(), await instance({ told: false })];
    purging.proxy.cut();
    await eventually(() => expect(purging.store.sharing).toBe(false));
    for (let i = 0; i <= MAX_PENDING_PURGES; i++) await purging.purges.purge(companyTag('GB', String(i)), {});
    purging.proxy.restore();
    await eventually(() => expect(purging.store.sharing).toBe(true));
    await readLog(purging);
    await readLog(other);
    expect(other.dropped).toEqual([ALL_TAG]);
  });

  it('drop everything an instance that started without Redis may have cached, once Redis answers', async () => {
    const late = await instance({ away: true });
    expect(late.dropped).toEqual([]);
    late.proxy.restore();
    await eventually(() => expect(late.store.sharing).toBe(true));
    await readLog(late);
    expect(late.dropped).toEqual([ALL_TAG]);
    expect(logged(late, 'Redis answered for the first time since this instance started')).toBe(1);
  });
});
