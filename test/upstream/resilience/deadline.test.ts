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
});
