import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpstreamTimeoutError } from '../../../src/errors/upstream-errors.js';
import { ConcurrencyLimit } from '../../../src/upstream/resilience/concurrency-limit.js';

const WHERE = 'GET /v1/company/search';
const LATER = () => Date.now() + 60_000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Asks for a slot for each of `names`, and tracks which were granted one and which timed out. */
function tracked(limit: ConcurrencyLimit, names: string[], expiresAt = LATER) {
  const granted: string[] = [];
  const failed: string[] = [];
  const releases = new Map<string, () => void>();
  for (const name of names) {
    limit.acquire(expiresAt(), WHERE).then(
      (release) => {
        granted.push(name);
        releases.set(name, release);
      },
      (error: unknown) => {
        expect(error).toBeInstanceOf(UpstreamTimeoutError);
        failed.push(name);
      },
    );
  }
  return { granted, failed, release: (name: string) => releases.get(name)!() };
}

describe('ConcurrencyLimit', () => {
  it('admits up to max calls at once and queues the rest', async () => {
    const limit = new ConcurrencyLimit(2);
    const calls = tracked(limit, ['a', 'b', 'c']);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.granted).toEqual(['a', 'b']);
  });

  it('hands freed slots to the waiters in arrival order', async () => {
    const limit = new ConcurrencyLimit(1);
    const calls = tracked(limit, ['a', 'b', 'c', 'd']);
    await vi.advanceTimersByTimeAsync(0);
    for (const [done, expected] of [
      ['a', ['a', 'b']],
      ['b', ['a', 'b', 'c']],
      ['c', ['a', 'b', 'c', 'd']],
    ] as const) {
      calls.release(done);
      await vi.advanceTimersByTimeAsync(0);
      expect(calls.granted).toEqual(expected);
    }
  });

  it('gives a slot back once however often its release is called', async () => {
    const limit = new ConcurrencyLimit(1);
    const calls = tracked(limit, ['a', 'b', 'c']);
    await vi.advanceTimersByTimeAsync(0);
    calls.release('a');
    calls.release('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.granted).toEqual(['a', 'b']);
  });

  it('fails a queued call with UPSTREAM_TIMEOUT at its deadline, not before, and drops it from the queue', async () => {
    const limit = new ConcurrencyLimit(1);
    const first = tracked(limit, ['a']);
    const soon = tracked(limit, ['b'], () => Date.now() + 500);
    const late = tracked(limit, ['c']);
    await vi.advanceTimersByTimeAsync(499);
    expect(soon.failed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(soon.failed).toEqual(['b']);

    first.release('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(soon.granted).toEqual([]);
    expect(late.granted).toEqual(['c']);
  });

  it('fails at once a call whose deadline has passed when no slot is free', async () => {
    const limit = new ConcurrencyLimit(1);
    tracked(limit, ['a']);
    const gone = tracked(limit, ['b'], () => Date.now() - 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(gone.failed).toEqual(['b']);
  });

  it('names the limit and the endpoint when a call times out in the queue', async () => {
    const limit = new ConcurrencyLimit(3);
    for (let i = 0; i < 3; i++) await limit.acquire(LATER(), WHERE);
    const waiting = limit.acquire(Date.now() + 10, WHERE);
    const failure = expect(waiting).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      detail: `No upstream call slot came free for ${WHERE} within the request deadline (3 calls in flight)`,
    });
    await vi.advanceTimersByTimeAsync(10);
    await failure;
  });

  it("keeps a call whose deadline is beyond a timer's reach (Infinity) queued, not timed out at once", async () => {
    const limit = new ConcurrencyLimit(1);
    const calls = tracked(limit, ['a', 'b'], () => Number.POSITIVE_INFINITY);
    // A delay over what a timer can wait (2^31 - 1 ms, about 24.8 days) would ring at once; it waits that long instead.
    await vi.advanceTimersByTimeAsync(24 * 24 * 3_600_000);
    expect(calls).toMatchObject({ granted: ['a'], failed: [] });
    calls.release('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toMatchObject({ granted: ['a', 'b'], failed: [] });
  });
});
