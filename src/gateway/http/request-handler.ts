import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { acceptsAnAnswer, ANSWER_MEDIA_TYPES, isReadableBody, REQUEST_MEDIA_TYPES } from './media-types.js';
import { isBatchBody } from '../graphql/batch-body.js';
import type { AccessDecision, Client } from '../access/client-access.js';
import { clientAddress, networkOf } from '../access/client-address.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { ConnectionLimitName } from './connection-cap.js';
import type { CorsPolicy } from './cors.js';
import { crossSiteRefusal } from './csrf.js';
import { type LingerBounds, refuseBeforeBody } from './early-refusal.js';
import type { Logger } from '../logger.js';
import { GRAPHQL_PATH, HEALTH_PATH } from '../paths.js';
import { sendRejection, type Rejection } from './rejection.js';
import { ClientGoneError, readBody } from './request-body.js';
import { originForm } from './request-target.js';

export interface RequestHandlerOptions {
  /** What answers a request once every check has passed: Yoga, given the body already read (none for GET and HEAD). */
  next: (request: IncomingMessage, response: ServerResponse, body: Buffer | undefined) => unknown;
  cors: CorsPolicy;
  checkAccess: (headers: IncomingMessage['headers'], address: string) => Promise<AccessDecision>;
  /** Absent: no rate limit. */
  rateLimiter: RateLimiter | undefined;
  maxBodyBytes: number;
  /** Most operations in one batched request; 0: batching off. */
  batchingLimit: number;
  trustedProxyCount: number;
  /** Whether GraphiQL is served; its page is static and loads without credentials. */
  graphiql: boolean;
  /** The connection limit a request's connection is over, if any. */
  connectionOverCap: (socket: Socket) => ConnectionLimitName | undefined;
  /** What of a request body still coming is read after refusing the request, so the client gets the refusal. */
  refusalLinger: LingerBounds;
  logger: Logger;
}

/** `continueFirst`: the client waits for `100 Continue` before sending its body, which it gets only once every check has passed. */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse, continueFirst?: boolean) => void;

/**
 * Every check that needs only the HTTP request, in front of Yoga: CORS,
 * cross-site refusal, body size, client access and rate limit. They run in
 * the node:http layer, as plain functions of headers and address, so that
 * anything answering before Yoga (such as a response cache) is still behind them.
 */
export function createRequestHandler(options: RequestHandlerOptions): RequestHandler {
  const { cors, logger } = options;
  return (request, response, continueFirst = false) => {
    request.url = originForm(request.url ?? '/');
    const origin = request.headers.origin;
    for (const [name, value] of Object.entries(cors.headers(origin))) response.setHeader(name, value);
    handle(options, request, response, continueFirst).catch((error: unknown) => {
      if (error instanceof ClientGoneError) {
        // Nobody is left to answer, and nothing went wrong here.
        logger.debug({ reason: error.message }, 'Client went away before sending its whole request');
        response.destroy();
        return;
      }
      logger.error({ err: error }, 'Request handling failed');
      if (!response.headersSent) {
        sendRejection(response, { status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Unexpected error.', closeConnection: true });
      } else {
        response.destroy();
      }
    });
  };
}

async function handle(
  options: RequestHandlerOptions,
  request: IncomingMessage,
  response: ServerResponse,
  continueFirst: boolean,
): Promise<void> {
  const overLimit = options.connectionOverCap(request.socket);
  if (overLimit) {
    return reject(options, response, {
      status: 503,
      code: 'TOO_MANY_CONNECTIONS',
      message:
        overLimit === 'MAX_CONNECTIONS'
          ? 'The server has as many connections open as it serves (MAX_CONNECTIONS); try again in 1 s'
          : 'Your address has as many connections open as one address is served (MAX_CONNECTIONS_PER_ADDRESS); send this request on one of them, or try again in 1 s',
      headers: { 'retry-after': '1' },
      closeConnection: true,
    });
  }
  const method = request.method ?? 'GET';
  const path = (request.url ?? '/').split('?', 1)[0];
  if (path === HEALTH_PATH) return void options.next(request, response, undefined);
  if (path !== GRAPHQL_PATH) {
    return reject(options, response, { status: 404, code: 'NOT_FOUND', message: `Nothing here; GraphQL is served at ${GRAPHQL_PATH}` });
  }
  if (method === 'OPTIONS') return answerOptions(options.cors, request, response);

  const refused = crossSiteRefusal(method, request.headers, options.cors.allows);
  if (refused) return reject(options, response, { status: 403, code: 'CROSS_SITE_REQUEST_REFUSED', message: refused });

  if (method === 'POST' && !isReadableBody(request.headers['content-type'])) {
    return reject(options, response, {
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `Send the request as ${REQUEST_MEDIA_TYPES[0]}${request.headers['content-type'] ? `, not ${request.headers['content-type']}` : '; the Content-Type header is missing'}`,
    });
  }

  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > options.maxBodyBytes) return reject(options, response, tooLarge(options.maxBodyBytes));

  const graphiqlPage = options.graphiql && method === 'GET' && (request.headers.accept ?? '').includes('text/html');
  if (!graphiqlPage && !acceptsAnAnswer(request.headers.accept)) {
    return reject(options, response, {
      status: 406,
      code: 'NOT_ACCEPTABLE',
      message: `Answers are ${ANSWER_MEDIA_TYPES.join(', ')} in UTF-8; the Accept header (${request.headers.accept}) allows none of them`,
    });
  }

  const address = networkOf(clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], options.trustedProxyCount));
  const access: AccessDecision = graphiqlPage
    ? { allowed: true, client: { kind: 'anonymous', key: `ip:${address}` } }
    : await options.checkAccess(request.headers, address);
  if (!access.allowed) {
    // Failed attempts count against the address, so guessing keys is rate limited too.
    const limited = rateLimited(options, `ip:${address}`);
    if (limited) return reject(options, response, limited);
    if (access.status === 503) {
      options.logger.warn({ detail: access.detail }, 'Bearer token keys unavailable');
      return reject(options, response, { status: 503, code: 'AUTH_UNAVAILABLE', message: access.message, headers: { 'retry-after': '5' } });
    }
    return reject(options, response, {
      status: 401,
      code: 'UNAUTHENTICATED',
      message: access.message,
      headers: { 'www-authenticate': access.challenge },
    });
  }

  const limited = rateLimited(options, access.client.key);
  if (limited) return reject(options, response, limited, access.client);

  let body: Buffer | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    if (continueFirst) response.writeContinue();
    body = await readBody(request, options.maxBodyBytes);
    if (body === undefined) return reject(options, response, tooLarge(options.maxBodyBytes), access.client);
    const batchRefused = chargeBatch(options, access.client.key, body);
    if (batchRefused) return reject(options, response, batchRefused, access.client);
  }
  await options.next(request, response, body);
}

function answerOptions(cors: CorsPolicy, request: IncomingMessage, response: ServerResponse): void {
  const origin = request.headers.origin;
  const preflight = origin !== undefined && request.headers['access-control-request-method'] !== undefined;
  if (preflight && !cors.allows(origin)) {
    sendRejection(response, {
      status: 403,
      code: 'CORS_ORIGIN_NOT_ALLOWED',
      message: `Origin ${origin} is not allowed: it is not in CORS_ALLOWED_ORIGINS`,
    });
    return;
  }
  response.writeHead(204, { allow: 'GET, POST, OPTIONS', ...(preflight ? cors.preflightHeaders(origin) : {}) });
  response.end();
}

function rateLimited(options: RequestHandlerOptions, clientKey: string, count = 1): Rejection | undefined {
  const decision = options.rateLimiter?.take(clientKey, count);
  if (decision === undefined || decision.allowed) return undefined;
  return {
    status: 429,
    code: 'RATE_LIMITED',
    message: `Too many requests; try again in ${decision.retryAfterSeconds} s`,
    headers: { 'retry-after': String(decision.retryAfterSeconds) },
  };
}

/**
 * Every operation of a batch costs what a request of its own would (each has
 * its own MAX_UPSTREAM_SEARCHES), so a batch takes one rate-limit token per
 * operation: the one taken before reading, and the rest here. Only a body
 * starting with `[` is parsed; a batch Yoga will refuse anyway costs no more.
 */
function chargeBatch(options: RequestHandlerOptions, clientKey: string, body: Buffer): Rejection | undefined {
  const limiter = options.rateLimiter;
  if (!limiter || options.batchingLimit === 0 || !isBatchBody(body)) {
    return undefined;
  }
  let operations: number;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length <= 1 || parsed.length > options.batchingLimit) return undefined;
    operations = parsed.length;
  } catch {
    return undefined;
  }
  if (operations > limiter.burst) {
    return {
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: `A batch may hold at most ${limiter.burst} operations here: each counts against the rate limit, and RATE_LIMIT_BURST is ${limiter.burst}`,
    };
  }
  return rateLimited(options, clientKey, operations - 1);
}

function tooLarge(maxBodyBytes: number): Rejection {
  return {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: `The request body is larger than ${maxBodyBytes} bytes`,
    closeConnection: true,
  };
}

function reject(options: RequestHandlerOptions, response: ServerResponse, rejection: Rejection, client?: Client): void {
  options.logger.info({ status: rejection.status, code: rejection.code, client: client?.key }, 'Request refused');
  if (bodyStillComing(response.req)) refuseBeforeBody(response, rejection, options.refusalLinger);
  else sendRejection(response, rejection);
}

function bodyStillComing(request: IncomingMessage): boolean {
  const { 'transfer-encoding': chunked, 'content-length': length } = request.headers;
  return !request.complete && (chunked !== undefined || Number(length ?? 0) > 0);
}
