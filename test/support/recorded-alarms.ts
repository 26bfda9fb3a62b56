import type { Alarm } from '../../src/upstream/resilience/clock.js';

/** One alarm the gateway set: rung by the test when it chooses, silenced by the gateway once no longer needed. */
export interface RecordedAlarm {
  ms: number;
  ring: () => void;
  silenced: boolean;
}

/** An Alarm that never rings by itself, and every alarm set through it, for a test to ring (e.g. a request's deadline). */
export function recordedAlarms(): { alarm: Alarm; set: RecordedAlarm[] } {
  const set: RecordedAlarm[] = [];
  const alarm: Alarm = (ms, ring) => {
    const recorded = { ms, ring, silenced: false };
    set.push(recorded);
    return () => {
      recorded.silenced = true;
    };
  };
  return { alarm, set };
}
