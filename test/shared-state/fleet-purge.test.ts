import { print } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { companyTag } from '../../src/upstream/cache-tags.js';
import { CompanyByNumberDocument } from '../generated/graphql.js';
import { ADMIN, purge } from '../support/admin.js';
import { startFleet, type Fleet } from '../support/fleet.js';
import { holdingUpstream, type HoldingUpstream } from '../support/holding-upstream.js';
import { json } from '../support/http.js';
import { recordedAlarms } from '../support/recorded-alarms.js';

const ZEBRA = { q: 'Zebra Quantum', jurisdiction: 'GB' };
const ZEBRA_NUMBER = { jurisdiction: 'GB', companyNumber: '09876543' };
const OLD_NAME = 'Zebra Quantum Fisheries Ltd';
const CORRECTED = 'Zebra Quantum Fisheries (Corrected) Ltd';

let fleet: Fleet | undefined;
let holding: HoldingUpstream | undefined;
afterEach(async () => {
  await fleet?.close();
  await holding?.close();
  fleet = undefined;
  holding = undefined;
});

/** The names a search on instance `index` answers with. */
async function searched(fleet: Fleet, index: number): Promise<string[]> {
  const answer = await fleet.search(index, ZEBRA);
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data!.searchCompanies.nodes.map((node) => node.name);
}

/** The company's name as instance `index` looks it up by its number. */
async function lookedUp(fleet: Fleet, index: number): Promise<string> {
  const answer = json(await fleet.post(index, { query: print(CompanyByNumberDocument), variables: ZEBRA_NUMBER })) as {
    data: { company: { name: string } };
  };
  return answer.data.company.name;
}

describe('a purge on one instance of a fleet', () => {
  it('reaches every instance, told by Redis, and the fleet then makes one upstream call per distinct search, with the same token', async () => {
    // The instances' reads of the log every second never ring here: what they apply, Redis told them.
    fleet = await startFleet({ gateway: ADMIN, purgeCheckAlarms: [0, 1, 2].map(() => recordedAlarms().alarm) });
    for (const index of [0, 1, 2]) {
      expect(await searched(fleet, index)).toEqual([OLD_NAME]);
      expect(await lookedUp(fleet, index)).toBe(OLD_NAME);
    }
    expect(fleet.lookup.counters).toMatchObject({ searchRequests: 2, tokenRequests: 1 });
    fleet.lookup.knobs.correctCompany('GB', '09876543', { name: CORRECTED });

    const answer = await purge(fleet.gateways[0]!.adminUrl!, ZEBRA_NUMBER);
    expect(json(answer)).toEqual({
      tag: companyTag('GB', '09876543'),
      dropped: { windows: 2, answers: 2, redisWindows: 2 },
      fleet: true,
      message: 'Purged on Redis and here; every other instance applies it within 1 s',
    });
    await Promise.all([fleet.logged(1, 'Purge applied'), fleet.logged(2, 'Purge applied')]);

    // Thirty of each search, spread over the three instances at once: one upstream call each, for the fleet.
    const searches = await Promise.all(Array.from({ length: 30 }, (_, i) => searched(fleet!, i % 3)));
    const lookups = await Promise.all(Array.from({ length: 30 }, (_, i) => lookedUp(fleet!, i % 3)));
    expect(new Set(searches.flat())).toEqual(new Set([CORRECTED]));
    expect(new Set(lookups)).toEqual(new Set([CORRECTED]));
    expect(fleet.lookup.counters).toMatchObject({ searchRequests: 4, tokenRequests: 1 });
    expect(fleet.logs.flat().filter((line) => line.includes('Redis unavailable'))).toEqual([]);
  });

  it('reaches an instance briefly away from Redis once it is back, at its first read of the log', async () => {
    const alarms = [0, 1, 2].map(() => recordedAlarms());
    fleet = await startFleet({ gateway: ADMIN, redisProxies: true, purgeCheckAlarms: alarms.map((recorded) => recorded.alarm) });
    for (const index of [0, 1, 2]) expect(await searched(fleet, index)).toEqual([OLD_NAME]);
    fleet.proxies[2]!.cut();
    await fleet.logged(2, 'Redis unavailable');
    fleet.lookup.knobs.correctCompany('GB', '09876543', { name: CORRECTED });
    expect(json(await purge(fleet.gateways[0]!.adminUrl!, ZEBRA_NUMBER))).toMatchObject({ fleet: true });
    await fleet.logged(1, 'Purge applied');
    expect(await searched(fleet, 1)).toEqual([CORRECTED]);
    // Away from Redis, an instance cannot learn of it: it serves what it holds, as it would any window.
    expect(await searched(fleet, 2)).toEqual([OLD_NAME]);
    alarms[2]!.ringFrom(0);
    expect(fleet.logs[2]!.filter((line) => line.includes('Purge applied'))).toEqual([]);

    fleet.proxies[2]!.restore();
    await fleet.logged(2, 'Redis is back');
    // Its next read of the log (or its channel's reconnection, whichever comes first) applies what it missed.
    alarms[2]!.ringFrom(0);
    await fleet.logged(2, 'Purge applied');
    expect(await searched(fleet, 2)).toEqual([CORRECTED]);
  });

  it('keeps a window fetched before it, on another instance, out of Redis: the fleet fetches the corrected one', async () => {
    holding = await holdingUpstream('Zebra Quantum', { answer: true, once: true });
    fleet = await startFleet({ gateway: ADMIN, upstreamUrl: holding.url });
    holding.forwardTo(fleet.lookup.url);
    // Instance 0 holds the fleet's lock on the search; the upstream has answered it with the company as it was.
    const before = searched(fleet, 0);
    await holding.reached;
    fleet.lookup.knobs.correctCompany('GB', '09876543', { name: CORRECTED });
    await purge(fleet.gateways[1]!.adminUrl!, ZEBRA_NUMBER);
    await fleet.logged(0, 'Purge applied');
    // Instance 2 waits for the fetch under the lock; its window, arriving after the purge, is not stored.
    const after = searched(fleet, 2);
    holding.release();
    expect(await before).toEqual([OLD_NAME]);
    expect(await after).toEqual([CORRECTED]);
    for (const index of [0, 1, 2]) expect(await searched(fleet, index)).toEqual([CORRECTED]);
    expect(fleet.lookup.counters.searchRequests).toBe(2);
  });
});
