import { describe, expect, it } from 'vitest';
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
    let finished = false;
    const work = () =>
      new Promise<string>((resolve) =>
        setTimeout(() => {
          finished = true;
          resolve('late');
        }, 100),
      );
    await expect(waitWithin(work, { expiresAt: Date.now() + 20 }, WHAT)).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(finished).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(finished).toBe(true);
  });
});
