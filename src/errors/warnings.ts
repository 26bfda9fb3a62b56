import type { ErrorCode } from './codes.js';
import type { UpstreamErrorCode } from './upstream-errors.js';

/** Something a client should know about data it did get, in `extensions.warnings`, e.g. that it is stale because the upstream failed. */
export interface ResponseWarning {
  code: ErrorCode;
  message: string;
  path?: readonly (string | number)[];
  [detail: string]: unknown;
}

/** The warning for data served past its TTL because the upstream failed when asked for fresh data. */
export function staleDataWarning(
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
