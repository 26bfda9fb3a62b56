/** Largest delay setTimeout honours: a longer one fires at once, with a TimeoutOverflowWarning. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Milliseconds from now until `expiresAt` (epoch ms), as a timer can wait
 * them: at least 0, at most MAX_TIMER_MS. A deadline beyond a timer's reach
 * (`Number.POSITIVE_INFINITY`: none) then waits as long as a timer can,
 * instead of ringing at once.
 */
export function timerDelayUntil(expiresAt: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(0, expiresAt - Date.now()));
}
