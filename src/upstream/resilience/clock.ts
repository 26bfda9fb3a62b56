/**
 * Epoch milliseconds now. The pieces that decide how long to hold calls back
 * (circuit breaker, token backoff and lifetime) read time through one of
 * these, so that tests move time on instead of sleeping through it.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
