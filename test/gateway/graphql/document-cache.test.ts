/**
 * Parsed documents kept for reuse are bounded by the bytes they hold, within
 * CACHE_MAX_BYTES, whatever their number or size. Found by the adversarial
 * review of issue 12: Yoga's own cache is bounded by count (1,024 documents).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { heapAfterGc } from '../../support/heap.js';
import { startStack, type Stack } from '../../support/stack.js';

const MiB = 1024 * 1024;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('parsed documents kept for reuse', () => {
  // Review: 300 distinct 7.7 KB documents of 700 fields held +100 MiB, 1,024 of them 350 MiB, whatever
  // CACHE_MAX_BYTES said. With rate limiting on, one client fills the cache in about 90 s.
  it('count against a byte bound', async () => {
    stack = await startStack({ gateway: { rateLimitPerMinute: 0, cacheMaxBytes: 4 * MiB } });
    await stack.post({ query: '{ __typename }' });
    const before = heapAfterGc();
    for (let i = 0; i < 300; i++) {
      const { status } = await stack.post({ query: `query Q${i} { ${'__typename '.repeat(700)} }` });
      expect(status).toBe(200);
    }
    // Several times what loaded runs measure, so that what else the test process allocates meanwhile cannot reach it.
    expect((heapAfterGc() - before) / MiB).toBeLessThan(16);
  }, 60_000);

  it('hold no more than they are counted at, for the densest documents', async () => {
    // A short field name over and over: the most held per character of any valid document (see DOCUMENT_BYTES_PER_CHARACTER).
    stack = await startStack({ gateway: { rateLimitPerMinute: 0, cacheMaxBytes: 32 * MiB, responseCache: false } });
    const dense = (i: number) => `query Q${i} { company(jurisdiction: "GB", companyNumber: "1") { ${'id '.repeat(300)} } }`;
    await stack.post({ query: dense(-1) });
    const before = heapAfterGc();
    const cacheBefore = stack.gateway.cacheBytes;
    for (let i = 0; i < 300; i++) expect((await stack.post({ query: dense(i) })).status).toBe(200);
    const held = heapAfterGc() - before;
    const counted = stack.gateway.cacheBytes - cacheBefore;
    // Kept by count, the 300 held 47 MB; the documents' share of 32 MiB is 4 MiB. The MiB over the count is headroom
    // for what else the test process allocates meanwhile: loaded runs use a small part of it, run after run alike.
    expect(counted).toBeGreaterThan(0);
    expect(held).toBeLessThan(counted + 1 * MiB);
  }, 60_000);

  it('keep no document that failed validation: its errors hold far more than it', async () => {
    stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
    const unknownFields = `{ ${Array.from({ length: 200 }, (_, k) => `f${k % 10}`).join(' ')} }`;
    const before = stack.gateway.cacheBytes;
    const { status, text } = await stack.post({ query: unknownFields });
    expect(status).toBe(400);
    expect(JSON.parse(text).errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(stack.gateway.cacheBytes).toBe(before);
    // A valid one is kept, and counted.
    expect((await stack.post({ query: '{ __typename }' })).status).toBe(200);
    expect(stack.gateway.cacheBytes).toBeGreaterThan(before);
  });
});
