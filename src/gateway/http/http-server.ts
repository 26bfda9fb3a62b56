import type { IncomingMessage, ServerOptions } from 'node:http';
import { type Logger, loggedPath } from '../logger.js';
import { ObservedResponse } from '../observability/observed-response.js';
import type { ConnectionLimits } from './connection-cap.js';
import type { LingerBounds } from './early-refusal.js';
import type { SocketTimeouts } from './socket-timeouts.js';

/** Where the gateway listens and how it treats client connections (HOST, PORT, timeouts, connection caps, refusals' linger). */
export interface HttpServerOptions {
  host: string;
  port: number;
  /** Node's own: the time a client has to send its headers, and its whole request. */
  requestTimeouts: RequestTimeouts;
  socketTimeouts: SocketTimeouts;
  connections: ConnectionLimits;
  /** What of a request body still coming is read after refusing the request, so the client gets the refusal. */
  refusalLinger: LingerBounds;
}

export interface RequestTimeouts {
  headersMs: number;
  requestMs: number;
}

/** How long a keep-alive connection may sit idle between requests. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Longest pause between Node's checks of the headers and request timeouts:
 * a slow client is dropped at most this long after its time is up. Node's
 * default, 30 s, held a client that never finished its headers for 60–90 s.
 */
export const MAX_CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/** A tenth of the headers timeout, so short timeouts hold as closely as long ones, and at most MAX_CONNECTIONS_CHECK_INTERVAL_MS. */
export function connectionsCheckingIntervalFor(headersTimeoutMs: number): number {
  return Math.min(MAX_CONNECTIONS_CHECK_INTERVAL_MS, Math.ceil(headersTimeoutMs / 10));
}

/**
 * node:http's settings for the gateway's server. Slow clients only hold
 * sockets: headers not in by HEADERS_TIMEOUT_MS, or the whole request by
 * REQUEST_TIMEOUT_MS, get 408 and a close.
 */
export function httpServerOptions({
  headersMs,
  requestMs,
}: RequestTimeouts): ServerOptions<typeof IncomingMessage, typeof ObservedResponse> {
  return {
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    connectionsCheckingInterval: connectionsCheckingIntervalFor(headersMs),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // Node answers an HTTP/1.1 request without Host with a bare 400; the request handler refuses it with a coded one.
    requireHostHeader: false,
    // Each response carries its request id and outcome, for the logs, the errors and the metrics.
    ServerResponse: ObservedResponse,
  };
}

/** Writes the one line every request gets, once its answer is written; returns the request's duration in ms. */
export function logAccess(accessLogger: Logger, response: ObservedResponse): number {
  const durationMs = performance.now() - response.startedAt;
  accessLogger.info(
    {
      method: response.req.method,
      path: loggedPath(response.req.url),
      status: response.statusCode,
      durationMs: Math.round(durationMs * 100) / 100,
      requestId: response.requestId,
    },
    'request',
  );
  return durationMs;
}
