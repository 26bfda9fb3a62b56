import type { UpstreamErrorCode } from '../upstream/errors.js';
import type { ResponseWarning } from './response-notes.js';

/** The warning for data served past its TTL because the upstream failed when asked for fresh data. */
export function staleWarning(
  reason: UpstreamErrorCode,
  fetchedAt: Date,
  what: string,
  path?: readonly (string | number)[],
): ResponseWarning {
  return {
    code: 'STALE_DATA',
    message: `The company lookup service failed (${reason}), so ${what} comes from a copy fetched at ${fetchedAt.toISOString()}, past its cache TTL.`,
    reason,
    fetchedAt: fetchedAt.toISOString(),
    ...(path ? { path } : {}),
  };
}
