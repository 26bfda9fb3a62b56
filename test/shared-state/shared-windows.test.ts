import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { COMPANY, type Company } from '../../src/upstream/company.js';
import { SharedWindows } from '../../src/upstream/shared-windows.js';
import { encodeWindow } from '../../src/upstream/window-codec.js';
import { NO_REPEATS, type SearchWindow } from '../../src/upstream/window-size.js';
import { manualClock } from '../support/clock.js';
import { companyWith } from '../support/declared-companies.js';
import { redisStorePerTest } from '../support/redis-server.js';

const KEY = 'acme|gb|0';
const TTL_MS = 60_000;
const MAX_AGE_MS = 10 * 60_000;
const HOUR_MS = 60 * 60_000;

const store = redisStorePerTest();

describe('SharedWindows', () => {
  it('takes a window stamped later than its own clock (a writer whose clock runs ahead) as fetched now, no fresher', async () => {
    const clock = manualClock();
    const windows = new SharedWindows({ store: store(), ttlMs: TTL_MS, maxAgeMs: MAX_AGE_MS, pageSize: 10, fetchTimeoutMs: 1_000, clock });
    // What an instance whose clock is an hour ahead publishes.
    const ahead: SearchWindow = { slots: [], repeated: NO_REPEATS, total: 0, fetchedAt: clock() + HOUR_MS };
    await store().set(`w:${createHash('sha256').update(KEY).digest('base64url')}`, encodeWindow(KEY, ahead), HOUR_MS * 2);

    const read = await windows.read(KEY);
    // Judged by its stamp, it would stay fresh here, and in every in-process cache it lands in, for an hour past its age.
    expect(read?.fetchedAt).toBe(clock());
  });

  it('reads back every window it publishes, whatever the upstream sent that its parser accepted', async () => {
    const clock = manualClock();
    const windows = new SharedWindows({ store: store(), ttlMs: TTL_MS, maxAgeMs: MAX_AGE_MS, pageSize: 10, fetchTimeoutMs: 1_000, clock });
    const company = (fields: Partial<Company>): Company => companyWith({ name: 'Acme', companyNumber: '1', jurisdiction: 'GB', ...fields });
    // A name as long as the upstream's parser takes, and a date past year 9999; a window it cannot read back is fetched
    // anew by every instance, one upstream call each.
    const slots = [
      company({ name: 'n'.repeat(COMPANY.name.maxLength) }),
      company({ incorporatedDate: new Date('+010000-01-01T00:00:00Z') }),
    ];
    for (const [index, slot] of slots.entries()) {
      const key = `${KEY}|${index}`;
      await windows.fetch(key, Number.NEGATIVE_INFINITY, async () => ({
        slots: [slot],
        repeated: NO_REPEATS,
        total: 1,
        fetchedAt: clock(),
      }));
      expect((await windows.read(key))?.slots).toEqual([slot]);
    }
  });
});
