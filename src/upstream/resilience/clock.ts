import { setTimeout } from 'node:timers/promises';

/**
 * Epoch milliseconds now. The pieces that decide how long to hold calls back
 * or keep something (circuit breaker, token backoff and lifetime, the caches'
 * TTLs, the rate limit's refill) read time through one of these, so that
 * tests move time on instead of sleeping through it.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** Waits `ms` milliseconds before a retry; tests replace it to see each backoff instead of sitting through it. */
export type Sleep = (ms: number) => Promise<void>;

export const systemSleep: Sleep = (ms) => setTimeout(ms);

/** Calls `ring` in `ms` milliseconds unless the returned function is called first; tests ring a request's deadline when they choose. */
export type Alarm = (ms: number, ring: () => void) => () => void;

export const systemAlarm: Alarm = (ms, ring) => {
  const timer = globalThis.setTimeout(ring, ms);
  return () => globalThis.clearTimeout(timer);
};
