import { describe, expect, it } from 'vitest';
import { COMPANY, type Company } from '../../src/upstream/company.js';
import { SharedWindows, type SharedWindowsOptions } from '../../src/upstream/shared-windows.js';
import { NO_REPEATS, type SearchWindow } from '../../src/upstream/window-size.js';
import { manualClock, type ManualClock } from '../support/clock.js';
import { companyWith } from '../support/declared-companies.js';
import { redisStorePerTest } from '../support/redis-server.js';

const KEY = 'acme|gb|0';
const QUERY = { q: 'acme', jurisdiction: 'GB' };
const TTL_MS = 60_000;
const MAX_AGE_MS = 10 * 60_000;
const HOUR_MS = 60 * 60_000;

const { store, clock } = redisStorePerTest();

function windows(instanceClock: ManualClock): SharedWindows {
  const options: SharedWindowsOptions = {
    store: store(),
    ttlMs: TTL_MS,
    maxAgeMs: MAX_AGE_MS,
    pageSize: 10,
    fetchTimeoutMs: 1_000,
    clock: instanceClock,
  };
  return new SharedWindows(options);
}

function fetched(instanceClock: ManualClock, slots: (Company | null)[] = []): () => Promise<SearchWindow> {
  return async () => ({ slots, repeated: NO_REPEATS, total: slots.length, fetchedAt: instanceClock(), fetchedAtWall: instanceClock() });
}

describe('SharedWindows', () => {
  it("judges a window's age on the store's clock: one an instance an hour ahead publishes is no fresher for another", async () => {
    const ahead = manualClock(clock()() + HOUR_MS);
    const behind = manualClock(clock()());
    await windows(ahead).fetch(KEY, QUERY, undefined, fetched(ahead));
    const fresh = await windows(behind).lookup(KEY);
    expect(fresh).toMatchObject({ window: { fetchedAt: behind() }, claim: undefined });
    for (const moving of [clock(), ahead, behind]) moving.advance(TTL_MS + 1);
    // Past its TTL on the one clock: stale for every instance, whose lookup claims the fetch.
    const stale = await windows(behind).lookup(KEY);
    expect(stale.window?.fetchedAt).toBe(behind() - TTL_MS - 1);
    expect(stale.claim?.answer.outcome).toBe('taken');
  });

  it('reads back every window it publishes, whatever the upstream sent that its parser accepted', async () => {
    const shared = windows(clock());
    const company = (fields: Partial<Company>): Company => companyWith({ name: 'Acme', companyNumber: '1', jurisdiction: 'GB', ...fields });
    // A name as long as the upstream's parser takes, and a date past year 9999; a window it cannot read back is fetched
    // anew by every instance, one upstream call each.
    const slots = [
      company({ name: 'n'.repeat(COMPANY.name.maxLength) }),
      company({ incorporatedDate: new Date('+010000-01-01T00:00:00Z') }),
    ];
    for (const [index, slot] of slots.entries()) {
      const key = `${KEY}|${index}`;
      await shared.fetch(key, QUERY, undefined, fetched(clock(), [slot]));
      expect((await shared.lookup(key)).window?.slots).toEqual([slot]);
    }
  });
});
