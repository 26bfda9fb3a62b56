/**
 * Parsed documents kept for reuse are bounded by the bytes they hold, within
 * CACHE_MAX_BYTES, whatever their number or size. Found by the adversarial
 * review of issue 12: Yoga's own cache is bounded by count (1,024 documents).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startMeasuredGateway, type MeasuredGateway } from '../../support/measured-gateway.js';
import { startStack, type Stack } from '../../support/stack.js';

const MiB = 1024 * 1024;

let stack: Stack | undefined;
let measured: MeasuredGateway | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
  await measured?.close();
  measured = undefined;
});

describe('parsed documents kept for reuse', () => {
  // Review: 300 distinct 7.7 KB documents of 700 fields held +100 MiB, 1,024 of them 350 MiB, whatever
  // CACHE_MAX_BYTES said. With rate limiting on, one client fills the cache in about 90 s.
  it('count against a byte bound', async () => {
    // The gateway in a process of its own, where its heap is all it holds (see measured-gateway.ts).
    measured = await startMeasuredGateway({ rateLimitPerMinute: 0, cacheMaxBytes: 4 * MiB });
    await measured.post({ query: '{ __typename }' });
    const before = (await measured.collected()).heapUsedBytes;
    for (let i = 0; i < 300; i++) {
      const { status } = await measured.post({ query: `query Q${i} { ${'__typename '.repeat(700)} }` });
      expect(status).toBe(200);
    }
    // The cache may hold 4 MiB; kept by count, the 300 held +100 MiB.
    expect(((await measured.collected()).heapUsedBytes - before) / MiB).toBeLessThan(16);
  }, 180_000);

  it('hold no more than they are counted at, for the densest documents', async () => {
    // A short field name over and over: the most held per character of any valid document (see DOCUMENT_BYTES_PER_CHARACTER).
    measured = await startMeasuredGateway({ rateLimitPerMinute: 0, cacheMaxBytes: 1024 * MiB, responseCache: false });
    const dense = (i: number) => `query Q${i} { company(jurisdiction: "GB", companyNumber: "1") { ${'id '.repeat(300)} } }`;
    // Documents like those measured, first: the code that handles them is then compiled and optimized before the
    // first reading, not between the two (about 1 MiB of a new process's heap). The documents' share (an eighth) keeps
    // them all, so that what the 300 hold is all in the second reading.
    for (let i = 0; i < 50; i++) expect((await measured.post({ query: dense(-1 - i) })).status).toBe(200);
    const before = await measured.collected();
    for (let i = 0; i < 300; i++) expect((await measured.post({ query: dense(i) })).status).toBe(200);
    const after = await measured.collected();
    const held = after.heapUsedBytes - before.heapUsedBytes;
    const counted = after.cacheBytes - before.cacheBytes;
    // The 300 hold about 47 MB. The MiB over the count is headroom for what the gateway's process allocates besides them.
    expect(counted).toBeGreaterThan(0);
    expect(held).toBeLessThan(counted + 1 * MiB);
  }, 180_000);

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
