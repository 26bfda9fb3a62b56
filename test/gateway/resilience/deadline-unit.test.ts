import { describe, expect, it } from 'vitest';
import { waitWithin } from '../../../src/upstream/resilience/deadline.js';

/** Collects rejections nobody handled while `run` goes on. */
async function unhandledDuring(run: () => Promise<void>): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', record);
  try {
    await run();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off('unhandledRejection', record);
  }
  return unhandled;
}

describe('waitWithin', () => {
  it.each([
    ['the deadline has passed', { expiresAt: Date.now() - 1 }],
    ['the caller has already left', { expiresAt: Date.now() + 60_000, signal: AbortSignal.abort() }],
  ])('leaves no unhandled rejection when %s and the shared work later fails', async (_case, deadline) => {
    const unhandled = await unhandledDuring(async () => {
      const work = new Promise((_resolve, reject) => setTimeout(() => reject(new Error('upstream failed')), 10));
      await expect(waitWithin(work, deadline, 'GET /v1/company/search')).rejects.toBeDefined();
    });
    expect(unhandled).toEqual([]);
  });
});
