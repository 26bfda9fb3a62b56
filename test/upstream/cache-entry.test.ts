import { afterEach, describe, expect, it } from 'vitest';
import { HarnessChild } from '../harness/child-process.js';
import type { CacheEntryShape } from './children/cache-entries.js';

let child: HarnessChild | undefined;
afterEach(async () => {
  await child?.stop();
  child = undefined;
});

/**
 * CACHE_ENTRY_BYTES (src/upstream/cache-entry.ts) against what entries really
 * hold: the smallest entries a cache meets, for which what holds the bytes is
 * most of what is held, and full windows. Measured in a process of its own
 * (children/cache-entries.ts), where nothing else allocates between two
 * readings, with a small young generation, whose growth would otherwise be
 * read as the entries'.
 */
describe('what a cache entry counts', () => {
  it.each([
    { shape: 'windows of no results', count: 30_000 },
    { shape: 'answers of a few bytes', count: 30_000 },
    { shape: 'windows of 50 results', count: 2_000 },
  ] satisfies { shape: CacheEntryShape; count: number }[])(
    'covers what $count $shape hold in the process, and not twice over',
    { timeout: 180_000 },
    async ({ shape, count }) => {
      // A process for each shape: memory another shape's entries left free in malloc's arenas would be taken without growing.
      child = await HarnessChild.spawn({
        name: 'cache-entries',
        script: 'test/upstream/children/cache-entries.ts',
        env: { PATH: process.env.PATH, NODE_ENV: 'test' },
        nodeFlags: ['--max-semi-space-size=1'],
        stdout: 'stderr',
      });
      const { held, counted } = await child.call<{ held: number; counted: number }>('measure', { shape, count }, 120_000);
      expect(held).toBeGreaterThan(0);
      expect(counted).toBeGreaterThanOrEqual(held);
      expect(counted).toBeLessThanOrEqual(2 * held);
    },
  );
});
