import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from '../support/within.js';
import { searchesFor } from './support/backends.js';
import { ComposeFleet, GATEWAYS } from './support/compose-fleet.js';
import { podman, searchBody, waitFor } from './support/containers.js';
import { startLoad } from './support/load.js';

const REDIS = ['redis', 'redis-replica-1', 'redis-replica-2', 'sentinel-1', 'sentinel-2', 'sentinel-3'];
const SERVICES = [...REDIS, 'lookup', ...GATEWAYS, 'haproxy', 'prometheus'];
const SAFETY_MS = 180_000;
const fleet = new ComposeFleet(`csgsentinel${process.pid}`, ['--sentinel']);

/** A sentinel's answer to `args`, asked with the sentinels' password (given in the environment, not the command line). */
async function sentinel(...args: string[]): Promise<string> {
  const password = readFileSync(join(fleet.secrets, 'redis-sentinel-password'), 'utf8').trim();
  return podman('exec', '-e', `REDISCLI_AUTH=${password}`, fleet.container('sentinel-1'), 'redis-cli', '-p', '26379', ...args);
}
const master = async () => (await sentinel('SENTINEL', 'get-master-addr-by-name', 'fleet')).split('\n')[0];

/** A search new to the fleet, asked once through the balancer of each gateway in turn: the upstream calls it took. */
async function askEachGateway(q: string): Promise<number> {
  for (const _ of GATEWAYS) {
    const response = await request(`http://127.0.0.1:${fleet.ports.fleet}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: searchBody(q),
    });
    expect(response.statusCode).toBe(200);
    expect(((await response.body.json()) as { errors?: unknown }).errors).toBeUndefined();
  }
  return searchesFor(await fleet.counters(), q).length;
}

describe('the fleet on Redis Sentinel (deploy/compose/compose.sentinel.yaml, fleet.sh --sentinel)', () => {
  beforeAll(async () => {
    await fleet.start(REDIS);
  });

  afterAll(async () => {
    await fleet.remove(SERVICES);
  });

  it('shares through the master the sentinels name, follows SENTINEL FAILOVER under load losing no request, and shares again on the new master', async () => {
    expect(await master()).toBe('redis');
    expect(await askEachGateway(`sentinel before ${process.pid}`), await fleet.sharingLog()).toBe(1);
    const outages = await fleet.logged('Redis unavailable');
    const returns = await fleet.logged('Redis is back');
    const load = startLoad(`http://127.0.0.1:${fleet.ports.fleet}`);
    try {
      await within(load.more(50), SAFETY_MS, 'traffic before the failover');
      // A sentinel that has not yet heard from a replica answers NOGOODSLAVE (a busy host's start): asked again until it has.
      const failover = await waitFor('a sentinel to start the failover', async () => {
        const answer = await sentinel('SENTINEL', 'FAILOVER', 'fleet');
        return answer.startsWith('NOGOODSLAVE') ? undefined : answer;
      });
      expect(failover).toBe('OK');
      await waitFor('the sentinels to name a replica master', async () => ((await master()) !== 'redis' ? true : undefined));
      // Every gateway on the new master: none in an outage (each one it logged has ended), and the fleet sharing again.
      await waitFor('every gateway sharing on the new master', async () => {
        const [away, back] = [await fleet.logged('Redis unavailable'), await fleet.logged('Redis is back')];
        if (away.some((count, index) => count - outages[index]! > back[index]! - returns[index]!)) return undefined;
        return (await askEachGateway(`sentinel after ${process.pid} ${Date.now()}`)) === 1 ? true : undefined;
      });
      await within(load.more(50), SAFETY_MS, 'traffic after the failover');
    } finally {
      const { failures } = await load.stop();
      expect(failures, await fleet.sharingLog()).toEqual([]);
    }
    // Each gateway logged at most one outage for the failover; the fleet asked for at most one token more than one.
    const after = await fleet.logged('Redis unavailable');
    for (const [index, count] of after.entries()) expect(count - outages[index]!).toBeLessThanOrEqual(1);
    expect((await fleet.counters()).tokenRequests, await fleet.sharingLog()).toBeLessThanOrEqual(2);
  });

  it("`fleet.sh --sentinel down` removes every container, the network and Prometheus' volume", async () => {
    await fleet.fleet('down');
    expect(await fleet.leftovers()).toBe('');
  });
});
