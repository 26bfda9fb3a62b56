import { describe, expect, it, vi } from 'vitest';
import { UpstreamTimeoutError } from '../../../src/errors/upstream-errors.js';
import { waitWithin } from '../../../src/upstream/resilience/deadline.js';

const WHAT = 'GET /v1/company/search';

describe('waitWithin', () => {
  it('starts nothing and answers UPSTREAM_TIMEOUT when the deadline has passed', async () => {
    let started = 0;
    const waiting = waitWithin(async () => ++started, { expiresAt: Date.now() - 1 }, WHAT);
    await expect(waiting).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(started).toBe(0);
  });

  it('starts nothing and answers with the reason the caller left when it has already gone', async () => {
    let started = 0;
    const left = new Error('client went away');
    const waiting = waitWithin(async () => ++started, { expiresAt: Date.now() + 60_000, signal: AbortSignal.abort(left) }, WHAT);
    await expect(waiting).rejects.toBe(left);
    expect(started).toBe(0);
  });

  it('stops waiting at the deadline while the work goes on', async () => {
    vi.useFakeTimers();
    try {
      let finished = false;
      const work = () =>
        new Promise<string>((resolve) =>
          setTimeout(() => {
            finished = true;
            resolve('late');
          }, 100),
        );
      const stopped = expect(waitWithin(work, { expiresAt: Date.now() + 20 }, WHAT)).rejects.toBeInstanceOf(UpstreamTimeoutError);
      await vi.advanceTimersByTimeAsync(20);
      await stopped;
      expect(finished).toBe(false);
      await vi.advanceTimersByTimeAsync(80);
      expect(finished).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("waits on when the deadline is beyond a timer's reach (Infinity), not timed out at once", async () => {
    vi.useFakeTimers();
    try {
      let finish: (value: string) => void = () => {};
      let outcome = 'waiting';
      waitWithin(() => new Promise<string>((resolve) => (finish = resolve)), { expiresAt: Number.POSITIVE_INFINITY }, WHAT).then(
        (value) => (outcome = value),
        (error: unknown) => (outcome = error instanceof UpstreamTimeoutError ? 'timed out' : String(error)),
      );
      // A delay over what a timer can wait (2^31 - 1 ms, about 24.8 days) would ring at once; it waits that long instead.
      await vi.advanceTimersByTimeAsync(24 * 24 * 3_600_000);
      expect(outcome).toBe('waiting');
      finish('done');
      await vi.advanceTimersByTimeAsync(0);
      expect(outcome).toBe('done');
    } finally {
      vi.useRealTimers();
    }
  });
});
