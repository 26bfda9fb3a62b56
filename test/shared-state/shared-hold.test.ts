import { describe, expect, it } from 'vitest';
import { UpstreamCircuitOpenError, UpstreamRateLimitHoldError } from '../../src/errors/upstream-errors.js';
import { HOLD_CLOCK_SKEW_MS, SharedHold } from '../../src/upstream/shared-hold.js';
import { manualClock } from '../support/clock.js';
import { redisStorePerTest } from '../support/redis-server.js';

const LONGEST_HOLD_MS = 60_000;

const store = redisStorePerTest();

describe('SharedHold', () => {
  it("holds an instance back for another's Retry-After, and for its open circuit, until they end", async () => {
    const clock = manualClock();
    const [first, second] = [new SharedHold(store(), clock, LONGEST_HOLD_MS), new SharedHold(store(), clock, LONGEST_HOLD_MS)];
    first.hold(LONGEST_HOLD_MS, true);
    await first.written();
    await expect(first.admit('a search')).resolves.toBeUndefined();
    await expect(second.admit('a search')).rejects.toThrow(UpstreamRateLimitHoldError);
    clock.advance(LONGEST_HOLD_MS);
    await expect(second.admit('a search')).resolves.toBeUndefined();

    first.hold(5_000, false);
    await first.written();
    await expect(second.admit('a search')).rejects.toThrow(UpstreamCircuitOpenError);
  });

  it('keeps to no hold longer than any instance writes, clock skew allowed: one written by hand would hold the fleet as long as it says', async () => {
    const clock = manualClock();
    const hold = new SharedHold(store(), clock, LONGEST_HOLD_MS);
    const written = (untilMs: number) => JSON.stringify({ by: 'another instance', until: clock() + untilMs, rateLimited: true });
    await store().set('upstream:hold', written(LONGEST_HOLD_MS + HOLD_CLOCK_SKEW_MS), 3_600_000);
    await expect(hold.admit('a search')).rejects.toThrow(UpstreamRateLimitHoldError);
    await store().set('upstream:hold', written(LONGEST_HOLD_MS + HOLD_CLOCK_SKEW_MS + 1), 3_600_000);
    await expect(hold.admit('a search')).resolves.toBeUndefined();
    await store().set('upstream:hold', written(Number.MAX_SAFE_INTEGER / 2), 3_600_000);
    await expect(hold.admit('a search')).resolves.toBeUndefined();
  });
});
