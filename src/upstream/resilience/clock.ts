import { setTimeout } from 'node:timers/promises';

/**
 * Milliseconds on a clock that never steps back. The pieces that decide how
 * long to hold calls back or keep something (circuit breaker, token backoff
 * and lifetime, the caches' TTLs and the windows' ages, the call budget) read
 * time through one of these, so that tests move time on instead of sleeping
 * through it; every such span is the difference of two readings.
 *
 * `wall`, where a clock has one, reads the wall clock: only for a moment shown
 * to people (when a window was fetched) or compared with one sent by others
 * (an HTTP date), never to age anything. A clock without one, as tests make,
 * stands for both.
 */
export type Clock = (() => number) & { readonly wall?: () => number };

/**
 * The monotonic clock (performance.now()) counted from the wall clock's time
 * at the process's start, so that a reading looks like epoch milliseconds: a
 * wall clock set back or forward later (NTP, an operator) neither makes old
 * data fresh nor fresh data old.
 */
export const systemClock: Clock = Object.assign(() => performance.timeOrigin + performance.now(), { wall: () => Date.now() });

/** The wall clock's time by `clock`: its `wall`, or its own reading. */
export function wallTime(clock: Clock): number {
  return clock.wall ? clock.wall() : clock();
}

/** Waits `ms` milliseconds before a retry; tests replace it to see each backoff instead of sitting through it. */
export type Sleep = (ms: number) => Promise<void>;

export const systemSleep: Sleep = (ms) => setTimeout(ms);

/** Calls `ring` in `ms` milliseconds unless the returned function is called first; tests ring a request's deadline when they choose. */
export type Alarm = (ms: number, ring: () => void) => () => void;

export const systemAlarm: Alarm = (ms, ring) => {
  const timer = globalThis.setTimeout(ring, ms);
  return () => globalThis.clearTimeout(timer);
};
