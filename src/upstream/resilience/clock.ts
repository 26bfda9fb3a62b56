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
