import { describe, expect, it } from 'vitest';
import { SharedToken } from '../../src/upstream/shared-token.js';
import { MAX_ACCESS_TOKEN_LENGTH } from '../../src/upstream/token-response.js';
import { manualClock } from '../support/clock.js';
import { redisStorePerTest } from '../support/redis-server.js';

const HOUR_MS = 60 * 60_000;

const { store, clock, cli } = redisStorePerTest();

describe('SharedToken', () => {
  it('takes a stored token the upstream could have issued, and none that could not be sent in a header', async () => {
    const shared = new SharedToken(store(), manualClock());
    const stored = (value: string) =>
      cli('HSET', 'test:{fleet}token', 'value', value, 'refreshAt', String(clock()() + HOUR_MS), 'expiresAt', String(clock()() + HOUR_MS));
    // As long as the upstream may issue (MAX_ACCESS_TOKEN_LENGTH): a shorter cap here made every instance ask for its own.
    const long = 'x'.repeat(MAX_ACCESS_TOKEN_LENGTH);
    stored(long);
    expect(await shared.obtain([], 60_000, Date.now())).toMatchObject({ outcome: 'token', token: { value: long } });
    // Sent as it is in `Authorization: Bearer ...`, such a value fails every search before it reaches the upstream,
    // so no 401 ever drops it: the fleet would be without a usable token until the key expired. It is renewed instead.
    for (const value of ['line\r\nbreak', 'with space', 'tab\there', 'é', `${long}x`]) {
      cli('DEL', 'test:{fleet}token:lock');
      stored(value);
      expect(await shared.obtain([], 60_000, Date.now())).toMatchObject({ outcome: 'mine' });
    }
  });

  it("gives the fleet's token as this instance's clock reads it: due for renewal as long after as the store's clock says", async () => {
    // This instance's clock is an hour ahead of the store's: the token is due when the store's clock says, not earlier.
    const ahead = manualClock(clock()() + HOUR_MS);
    const shared = new SharedToken(store(), ahead);
    await shared.publish({ value: 'fleet', refreshAt: ahead() + 1_000, expiresAt: ahead() + 2_000 }, 'a');
    expect(await shared.obtain([], 60_000, Date.now())).toEqual({
      outcome: 'token',
      token: { value: 'fleet', refreshAt: ahead() + 1_000, expiresAt: ahead() + 2_000 },
    });
    clock().advance(1_000);
    expect(await shared.obtain([], 60_000, Date.now())).toMatchObject({ outcome: 'mine' });
  });
});
