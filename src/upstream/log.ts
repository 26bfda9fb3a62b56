import { isHeldBack, UpstreamError } from '../errors/upstream-errors.js';

/** Where the upstream client reports what operators should see; pino's logger fits. */
export interface UpstreamLog {
  debug(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
}

/** Failures already logged as warnings; weak, so it holds none of them. */
const reported = new WeakSet<object>();

/**
 * Logs a failure with its detail (endpoint, status, library code), as a
 * warning the first time it is seen and at debug after that: one failure
 * shared by a token renewal, a search fetch and every request waiting for
 * them is one warning. Calls the circuit breaker held back are always debug;
 * it warns once when it starts holding them.
 */
export function reportFailure(log: UpstreamLog, error: unknown, message: string, details: Record<string, unknown> = {}): void {
  const fields = {
    code: error instanceof UpstreamError ? error.code : undefined,
    detail: error instanceof UpstreamError ? error.detail : error instanceof Error ? error.message : String(error),
    ...details,
  };
  const key = typeof error === 'object' && error !== null ? error : undefined;
  if (isHeldBack(error) || (key && reported.has(key))) {
    log.debug(fields, message);
    return;
  }
  if (key) reported.add(key);
  log.warn(fields, message);
}
