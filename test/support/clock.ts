import type { Clock } from '../../src/upstream/resilience/clock.js';

/** A clock that stands still until the test moves it on. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export function manualClock(start = Date.now()): ManualClock {
  let now = start;
  return Object.assign(() => now, {
    advance(ms: number) {
      now += ms;
    },
  });
}
