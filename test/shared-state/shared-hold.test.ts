import { describe, expect, it } from 'vitest';
import { UpstreamCircuitOpenError, UpstreamRateLimitHoldError } from '../../src/errors/upstream-errors.js';
import { heldBackByFleet, SharedHold } from '../../src/upstream/shared-hold.js';
import { redisStorePerTest } from '../support/redis-server.js';

const LONGEST_HOLD_MS = 60_000;

const { store, clock, cli } = redisStorePerTest();

describe('SharedHold', () => {
  it("holds an instance back for another's Retry-After, and for its open circuit, until they end", async () => {
    const [first, second] = [new SharedHold(store(), LONGEST_HOLD_MS, undefined), new SharedHold(store(), LONGEST_HOLD_MS, undefined)];
    first.hold(LONGEST_HOLD_MS, true);
    await first.written();
    // Its own hold does not hold the instance that wrote it back: it keeps to its own breaker.
    expect(await store().admit(first.admission)).toEqual({ outcome: 'allowed' });
    const held = await store().admit(second.admission);
    expect(held).toEqual({ outcome: 'held back', reason: 'rate_limited', waitMs: LONGEST_HOLD_MS });
    if (held?.outcome === 'held back') expect(heldBackByFleet(held, 'a search')).toBeInstanceOf(UpstreamRateLimitHoldError);
    clock().advance(LONGEST_HOLD_MS);
    expect(await store().admit(second.admission)).toEqual({ outcome: 'allowed' });

    first.hold(5_000, false);
    await first.written();
    const open = await store().admit(second.admission);
    expect(open).toEqual({ outcome: 'held back', reason: 'circuit_open', waitMs: 5_000 });
    if (open?.outcome === 'held back') expect(heldBackByFleet(open, 'a search')).toBeInstanceOf(UpstreamCircuitOpenError);
  });

  it('keeps to no hold longer than any instance writes: one written by hand would hold the fleet as long as it says', async () => {
    const hold = new SharedHold(store(), LONGEST_HOLD_MS, undefined);
    const write = (untilMs: number) =>
      cli('HSET', 'test:{fleet}upstream:hold', 'by', 'another instance', 'until', String(clock()() + untilMs), 'rateLimited', '1');
    write(LONGEST_HOLD_MS);
    expect(await store().admit(hold.admission)).toMatchObject({ outcome: 'held back', reason: 'rate_limited' });
    write(LONGEST_HOLD_MS + 1);
    expect(await store().admit(hold.admission)).toEqual({ outcome: 'allowed' });
    write(Number.MAX_SAFE_INTEGER / 2);
    expect(await store().admit(hold.admission)).toEqual({ outcome: 'allowed' });
    cli('HSET', 'test:{fleet}upstream:hold', 'until', 'nan');
    expect(await store().admit(hold.admission)).toEqual({ outcome: 'allowed' });
  });
});
