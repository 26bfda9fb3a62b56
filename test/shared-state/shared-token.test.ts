import { describe, expect, it } from 'vitest';
import { SharedToken } from '../../src/upstream/shared-token.js';
import { MAX_ACCESS_TOKEN_LENGTH } from '../../src/upstream/token-response.js';
import { manualClock } from '../support/clock.js';
import { redisStorePerTest } from '../support/redis-server.js';

const HOUR_MS = 60 * 60_000;

const store = redisStorePerTest();

describe('SharedToken', () => {
  it('takes a stored token the upstream could have issued, and none that could not be sent in a header', async () => {
    const clock = manualClock();
    const shared = new SharedToken(store(), clock);
    const stored = (value: string) => JSON.stringify({ value, refreshAt: clock() + HOUR_MS, expiresAt: clock() + HOUR_MS });
    // As long as the upstream may issue (MAX_ACCESS_TOKEN_LENGTH): a shorter cap here made every instance ask for its own.
    const long = 'x'.repeat(MAX_ACCESS_TOKEN_LENGTH);
    await store().set('token', stored(long), HOUR_MS);
    expect((await shared.current([]))?.value).toBe(long);
    // Sent as it is in `Authorization: Bearer ...`, such a value fails every search before it reaches the upstream,
    // so no 401 ever drops it: the fleet would be without a usable token until the key expired.
    for (const value of ['line\r\nbreak', 'with space', 'tab\there', 'é', `${long}x`]) {
      await store().set('token', stored(value), HOUR_MS);
      expect(await shared.current([])).toBeUndefined();
    }
  });
});
