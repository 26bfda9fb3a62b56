import { expect } from 'vitest';
import type { Alarm } from '../../src/upstream/resilience/clock.js';

/** One alarm the gateway set: rung by the test when it chooses, silenced by the gateway once no longer needed. */
interface RecordedAlarm {
  ms: number;
  ring: () => void;
  silenced: boolean;
}

export interface RecordedAlarms {
  /** An Alarm that never rings by itself: what the gateway is given (e.g. to ring a request's deadline). */
  alarm: Alarm;
  /** Checks that every alarm set so far was silenced, its wait having ended without it, and forgets them. */
  forgetSilenced(): void;
  /** Checks that exactly one alarm was set since, for more than 0 and at most `atMostMs`, and rings it. */
  ringTheOnlyOne(atMostMs: number): void;
  /** How many alarms were set since the last forgetSilenced(). */
  readonly count: number;
  /** Rings every alarm set since, from the `first`-th (0-based) on, in the order they were set. */
  ringFrom(first: number): void;
}

export function recordedAlarms(): RecordedAlarms {
  let set: RecordedAlarm[] = [];
  return {
    alarm: (ms, ring) => {
      const recorded = { ms, ring, silenced: false };
      set.push(recorded);
      return () => {
        recorded.silenced = true;
      };
    },
    forgetSilenced() {
      expect(set.filter((alarm) => !alarm.silenced)).toEqual([]);
      set = [];
    },
    ringTheOnlyOne(atMostMs) {
      expect(set).toHaveLength(1);
      const [alarm] = set as [RecordedAlarm];
      expect(alarm.ms).toBeGreaterThan(0);
      expect(alarm.ms).toBeLessThanOrEqual(atMostMs);
      alarm.ring();
    },
    get count() {
      return set.length;
    },
    ringFrom(first) {
      for (const alarm of set.slice(first)) alarm.ring();
    },
  };
}
