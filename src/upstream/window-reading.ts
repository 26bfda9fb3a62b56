import { UpstreamRejectedQueryError } from '../errors/upstream-errors.js';
import { errorForStatus } from './status-error.js';
import { reportFailure, type UpstreamLog } from './log.js';
import { repeatedSlots } from './repeated-results.js';
import type { SearchQuery } from './search-query.js';
import { MAX_PREVIOUS_NAMES, readSearchResponse, type SearchResponse } from './search-response.js';
import { type Clock, wallTime } from './resilience/clock.js';
import type { UpstreamResponse } from './upstream-http.js';
import { NO_REPEATS, type SearchWindow } from './window-size.js';

export interface WindowReading {
  log: UpstreamLog;
  /** Blanks out the secret and the service tokens in text the upstream wrote. */
  redact(text: string): string;
  /** The page size every search asks for: results past it are left out. */
  pageSize: number;
  /** Stamps each window's `fetchedAt`, from which the cache judges its age, and with its wall time `fetchedAtWall`. */
  clock: Clock;
}

/**
 * Reads the answer to the search for window `index` of `query`: a 400 is the
 * upstream refusing the search (its reason goes to the log only), any other
 * status but 200 fails, and a 200 is read field by field, with malformed
 * fields and repeated companies logged once for the window.
 */
export function readWindow(
  response: UpstreamResponse,
  where: string,
  { query, index }: { query: SearchQuery; index: number },
  { log, redact, pageSize, clock }: WindowReading,
): SearchWindow {
  if (response.status === 400) {
    // The upstream may echo what it was sent; the token and the secret never reach the log. Redacted before it is
    // shortened: a cut inside a secret would leave its first characters, which no longer match it, in the log.
    const reason = redact(upstreamMessage(response.body)).slice(0, MAX_UPSTREAM_MESSAGE_LENGTH);
    const error = new UpstreamRejectedQueryError(`Company lookup service rejected the search on ${where} (400)`);
    reportFailure(log, error, 'Company lookup service rejected a search', { reason });
    throw error;
  }
  if (response.status !== 200) throw errorForStatus(response.status, where, response.retryAfterMs);
  const { read, repeated } = readWindowBody(response.body, query.jurisdiction, where, pageSize);
  if (read.unasked > 0) {
    log.warn(
      { jurisdiction: query.jurisdiction, window: index, kept: read.slots.length, leftOut: read.unasked },
      'Upstream sent more results than the page asked for; kept the page',
    );
  }
  if (read.previousNamesLeftOut > 0) {
    log.warn(
      { jurisdiction: query.jurisdiction, window: index, leftOut: read.previousNamesLeftOut },
      `Upstream sent companies with more than ${MAX_PREVIOUS_NAMES} previous names; kept the first ${MAX_PREVIOUS_NAMES} of each`,
    );
  }
  if (read.invalidFields.length > 0) {
    log.warn(
      { jurisdiction: query.jurisdiction, fields: read.invalidFields.slice(0, 20), count: read.invalidFields.length },
      'Upstream sent malformed fields; read them as null',
    );
  }
  if (repeated.length > 0) {
    log.warn(
      { jurisdiction: query.jurisdiction, window: index, repeated: repeated.length, slots: repeated.slice(0, 20) },
      'Upstream sent the same company more than once in one window; kept the first',
    );
  }
  return {
    slots: read.slots,
    repeated: repeated.length > 0 ? repeated : NO_REPEATS,
    total: read.total,
    fetchedAt: clock(),
    fetchedAtWall: wallTime(clock),
    // Kept only when it holds no more results than the window: then its length is the window's, not the upstream's choice.
    body: read.unasked === 0 ? response.body : undefined,
  };
}

/**
 * A 200's body read as a window's results, field by field, with the slots of
 * repeated companies emptied and listed; nothing goes to the log. The same
 * body, jurisdiction and page size always read the same: the search cache
 * keeps a window as its body and reads it again here (window-bytes.ts).
 */
export function readWindowBody(
  body: string,
  jurisdiction: string,
  where: string,
  pageSize: number,
): { read: SearchResponse; repeated: number[] } {
  const read = readSearchResponse(body, jurisdiction, where, pageSize);
  const repeated = repeatedSlots(read.slots);
  for (const slot of repeated) read.slots[slot] = null;
  return { read, repeated };
}

const MAX_UPSTREAM_MESSAGE_LENGTH = 200;

/** The `message` of an upstream error body, for the log; clients get a fixed message. */
function upstreamMessage(body: string): string {
  try {
    const { message } = JSON.parse(body) as { message?: unknown };
    if (typeof message === 'string' && message !== '') return message;
  } catch {
    // A non-JSON error body has no reason worth logging.
  }
  return 'no reason given';
}
