import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessChild } from '../harness/child-process.js';
import { WINDOW_SHAPES } from './window-shapes.js';

// Measured in a process of its own (children/window-sizes.ts, with --expose-gc), where nothing else allocates
// between two heap readings: in the test process, what else a loaded run does moved the small windows' figures
// past their bounds.
let child: HarnessChild;
beforeAll(async () => {
  child = await HarnessChild.spawn({
    name: 'window-sizes',
    script: 'test/upstream/children/window-sizes.ts',
    env: { PATH: process.env.PATH, NODE_ENV: 'test' },
    stdout: 'stderr',
  });
}, 60_000);
afterAll(() => child?.stop());

describe('search window size', () => {
  it.each(WINDOW_SHAPES.map((shape) => ({ shape })))(
    'counts what a window with $shape holds on the heap, never less than 90% of it',
    async ({ shape }) => {
      const { count, held, counted } = await child.call<{ count: number; held: number; counted: number }>('measure', shape);
      expect(count).toBeGreaterThan(0);
      expect(counted).toBeGreaterThanOrEqual(0.9 * held);
      // Above what is held (shared short strings, room an object may not have), but not far above.
      expect(counted).toBeLessThanOrEqual(1.6 * held);
    },
  );
});
