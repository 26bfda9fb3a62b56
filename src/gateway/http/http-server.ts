import { createServer, type IncomingMessage, type ServerOptions } from 'node:http';
import type { Refusal } from '../../errors/refusal.js';
import { accessLoggerOf, type Logger, loggedPath } from '../logger.js';
import { ObservedResponse, startObserving } from '../observability/observed-response.js';
import type { Tracing } from '../observability/tracing-hooks.js';
import type { ConnectionCap, ConnectionLimits } from './connection-cap.js';
import type { LingerBounds } from './early-refusal.js';
import { listen } from './listen.js';
import type { RequestHandler } from './request-handler.js';
import { applySocketTimeouts, type SocketTimeouts } from './socket-timeouts.js';
import { answerUnhandledRequests } from './unhandled-requests.js';
import { trackUnservedConnections } from './unserved-connections.js';

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

export interface HttpServerParts {
  options: HttpServerOptions;
  /** The checks in front of GraphQL, and what answers once they pass (request-handler.ts). */
  handleRequest: RequestHandler;
  connectionCap: ConnectionCap;
  logger: Logger;
  /** Where tracing is on: each request in a server span of its own. */
  tracing: Tracing | undefined;
  /** Told of each answer once it is written, with how long the request took. */
  answered: (response: ObservedResponse, durationMs: number) => void;
  /** Told of each request Node could not hand to the handler, once it is refused (unhandled-requests.ts). */
  refusedUnhandled: (refusal: Refusal) => void;
}

/** The gateway's public server, listening. */
export interface ServingHttp {
  /** Base URL, e.g. `http://127.0.0.1:4000`. */
  url: string;
  /** Accepts no more connections and closes each as it falls idle; those still busy after `graceMs` are closed. */
  close(graceMs: number): Promise<void>;
  /** Stops listening at once, for a start that fails half-way. */
  abort(): void;
  /** Client connections open now. */
  connections(): Promise<number>;
}

/**
 * Listens on HOST and PORT with every bound on client connections in place:
 * Node's headers and request timeouts, the connection caps, the socket
 * timeouts, the answers to what Node does not hand to a handler, and one
 * access line per request.
 */
export async function startHttpServer(parts: HttpServerParts): Promise<ServingHttp> {
  const { options, handleRequest, logger } = parts;
  const accessLogger = accessLoggerOf(logger);
  let closing = false;
  // One listener for every response (`this`), rather than a closure made for each.
  function finished(this: ObservedResponse): void {
    // Once shutdown has begun, a keep-alive connection is closed as soon as it falls idle.
    if (closing) server.closeIdleConnections();
    parts.answered(this, logAccess(accessLogger, this));
  }
  const serve = (request: IncomingMessage, response: ObservedResponse, continueFirst = false) => {
    startObserving(request, response);
    if (closing) response.setHeader('connection', 'close');
    // 'finish' comes once: on() spares once()'s wrapper.
    response.on('finish', finished);
    handleRequest(request, response, continueFirst);
  };
  const served = parts.tracing ? parts.tracing.traceRequests(serve) : serve;
  const server = createServer(httpServerOptions(options.requestTimeouts), served);
  // Without this listener Node sends `100 Continue` before any check has run.
  server.on('checkContinue', (request: IncomingMessage, response: ObservedResponse) => served(request, response, true));
  // Without this listener Node answers other expectations with a bare 417; the request handler refuses them with a coded one.
  server.on('checkExpectation', (request: IncomingMessage, response: ObservedResponse) => served(request, response));
  parts.connectionCap.attach(server);
  applySocketTimeouts(server, options.socketTimeouts, logger);
  const closeUnserved = trackUnservedConnections(server);
  answerUnhandledRequests(server, options.refusalLinger.ms, (refusal) => {
    logger.info({ status: refusal.status, code: refusal.code }, 'Request refused');
    parts.refusedUnhandled(refusal);
  });
  const url = await listen(server, options.host, options.port, { host: 'HOST', port: 'PORT' });
  return {
    url,
    async close(graceMs) {
      closing = true;
      // close() also closes the keep-alive connections idle now (Node 19+); `finished` above closes the rest as they fall idle.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Connections that never brought a request (silent, or headers still coming) have nothing to finish.
      closeUnserved();
      const forced = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(forced);
    },
    abort: () => server.close(),
    connections: () => new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
  };
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
