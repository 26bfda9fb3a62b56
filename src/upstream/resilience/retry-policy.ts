import { isHeldBack, UpstreamRateLimitedError, UpstreamUnavailableError } from '../../errors/upstream-errors.js';

/** The upstream advises waiting at least this long after a 429 that names no Retry-After. */
export const RATE_LIMIT_BACKOFF_BASE_MS = 1_000;
/** No single backoff is longer than this, whatever the attempt. */
export const MAX_BACKOFF_MS = 30_000;

export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  retries: number;
  /** First backoff ceiling after a 5xx or a refused or reset connection; it doubles each retry. */
  baseDelayMs: number;
  /** Random source in [0, 1); tests replace it for exact delays. */
  random?: () => number;
}

/**
 * How long to wait before retry number `retry` (0 for the first) after
 * `error`, or undefined when the error is not worth retrying: a timeout (the
 * upstream is slow, asking again adds load), a refused credential or query,
 * a bad body, or a call the circuit breaker held back.
 *
 * A Retry-After from the upstream is honoured (capped where it is read), unless
 * it asks for no wait at all (`0`, or a date past): that is no backoff, and a
 * 429 or 503 answered so was retried at once, every retry. Otherwise a 5xx or a
 * connection failure backs off exponentially with full jitter, so retries from
 * many requests spread out instead of arriving together; a 429 backs off from
 * 1 s, with jitter on top of that floor.
 */
export function retryDelay(error: unknown, retry: number, policy: RetryPolicy): number | undefined {
  const random = policy.random ?? Math.random;
  if (isHeldBack(error)) return undefined;
  if (error instanceof UpstreamRateLimitedError) {
    const floor = Math.min(RATE_LIMIT_BACKOFF_BASE_MS * 2 ** retry, MAX_BACKOFF_MS);
    return waitAsked(error.retryAfterMs) ?? floor + random() * floor;
  }
  if (error instanceof UpstreamUnavailableError) {
    return waitAsked(error.retryAfterMs) ?? random() * Math.min(policy.baseDelayMs * 2 ** retry, MAX_BACKOFF_MS);
  }
  return undefined;
}

/** A Retry-After that asks for a wait; undefined for none, or for one of no time. */
function waitAsked(retryAfterMs: number | undefined): number | undefined {
  return retryAfterMs !== undefined && retryAfterMs > 0 ? retryAfterMs : undefined;
}

/**
 * RFC 9110 HTTP-date, in any of its three forms (IMF-fixdate, RFC 850,
 * asctime). Checked before Date.parse, which reads almost anything ("abc 2"
 * is a date in 2001); undici's strict parser is internal and not exported.
 */
const HTTP_DATE =
  /^(?:[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * Reads a Retry-After header: delay-seconds or an HTTP date, at most `maxMs`
 * whatever the upstream asks, so that one header cannot stop calls for days.
 * Undefined when absent or unreadable, so the caller falls back to its own
 * backoff.
 */
export function parseRetryAfter(header: string | string[] | undefined, maxMs: number, now = Date.now()): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1_000, maxMs);
  const date = HTTP_DATE.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - now), maxMs);
}
