import {
  UpstreamBadResponseError,
  type UpstreamError,
  UpstreamRateLimitedError,
  UpstreamUnavailableError,
} from '../errors/upstream-errors.js';

/** The error for a status that the endpoint's own handling does not expect. */
export function errorForStatus(status: number, where: string, retryAfterMs?: number): UpstreamError {
  if (status === 429) {
    return new UpstreamRateLimitedError(`Company lookup service rate-limited ${where} (429)`, { retryAfterMs });
  }
  if (status >= 500) {
    return new UpstreamUnavailableError(`Company lookup service failed on ${where} (${status})`, { retryAfterMs });
  }
  return new UpstreamBadResponseError(`Company lookup service answered ${where} with unexpected status ${status}`);
}
