import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ANSWER_MEDIA_TYPES, answerTypeFor, isReadableBody, MAX_ACCEPT_LENGTH, REQUEST_MEDIA_TYPES } from './media-types.js';
import { isBatchBody } from '../graphql/batch-body.js';
import type { AccessDecision, AccessPolicy, Client } from '../access/client-access.js';
import { clientAddress, failedAttemptClients, networkOf } from '../access/client-address.js';
import type { RateDecision } from '../limits/rate-limiter.js';
import type { ClientRateLimit } from '../limits/shared-rate-limiter.js';
import type { ConnectionLimitName } from './connection-cap.js';
import type { CorsPolicy } from './cors.js';
import { crossSiteRefusal } from './csrf.js';
import { type LingerBounds, refuseBeforeBody } from './early-refusal.js';
import type { Logger } from '../logger.js';
import { GRAPHIQL_FILES_PATH, GRAPHQL_PATH, HEALTH_PATH, pathOf, READY_PATH } from '../paths.js';
import { requestIdOf } from '../observability/observed-response.js';
import { answerLive } from '../observability/readiness.js';
import { AuthUnavailableError, RateLimitedError } from '../../errors/access-refusals.js';
import {
  AcceptTooLongError,
  BatchTooLargeError,
  CorsOriginNotAllowedError,
  ExpectationFailedError,
  InvalidHostError,
  MethodNotAllowedError,
  NotAcceptableError,
  NotFoundError,
  PayloadTooLargeError,
  TooManyConnectionsError,
  UnsupportedMediaTypeError,
} from '../../errors/http-refusals.js';
import { InternalServerError } from '../../errors/internal-error.js';
import type { Refusal } from '../../errors/refusal.js';
import { sendRejection } from './rejection.js';
import { isUnmetExpectation, isValidHost, originForm } from './request-target.js';
import { ClientGoneError, readBody } from '../../shared/request-body.js';

export interface RequestHandlerOptions {
  /** What answers a request once every check has passed: Yoga, given the body already read (none for GET and HEAD). */
  next: (request: IncomingMessage, response: ServerResponse, body: Buffer | undefined) => Promise<void> | undefined;
  cors: CorsPolicy;
  checkAccess: AccessPolicy;
  /** Absent: no rate limit. */
  rateLimiter: ClientRateLimit | undefined;
  maxBodyBytes: number;
  /** Most operations in one batched request; 0: batching off. */
  batchingLimit: number;
  trustedProxyCount: number;
  /** Where GRAPHIQL is on: what answers a browser's GET of /graphql, and GraphiQL's files. */
  graphiql: GraphiqlRoutes | undefined;
  /** The connection limit a request's connection is over, if any. */
  connectionOverCap: (socket: Socket) => ConnectionLimitName | undefined;
  /** What of a request body still coming is read after refusing the request, so the client gets the refusal. */
  refusalLinger: LingerBounds;
  logger: Logger;
  /** Answers /ready: 200 while the gateway takes traffic, 503 once it drains. */
  answerReady: (response: ServerResponse) => void;
  /** Told of each request the rate limit refuses, and whose. */
  onRateLimited: (client: Client) => void;
  /** Told of each answer once it is written whole, to count what its client has not taken in (unread-answers.ts). */
  answered: (response: ServerResponse) => void;
}

/** Static answers, loaded without credentials: the page a browser opens at /graphql, and the files it loads from under /graphiql/. */
export type GraphiqlRoutes =
  | {
      served: true;
      page: (request: IncomingMessage, response: ServerResponse) => Promise<void>;
      /** False, with nothing sent, when there is no such file. */
      file: (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;
    }
  | { served: false; refusal: () => Refusal };

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
    const headers = cors.headers(request.headers.origin);
    for (const name in headers) response.setHeader(name, headers[name]!);
    handle(options, request, response, continueFirst).then(
      () => options.answered(response),
      (error: unknown) => {
        if (error instanceof ClientGoneError) {
          // Nobody is left to answer, and nothing went wrong here.
          logger.debug({ reason: error.message, requestId: requestIdOf(response) }, 'Client went away before sending its whole request');
          response.destroy();
          return;
        }
        logger.error({ err: error, requestId: requestIdOf(response) }, 'Request handling failed');
        if (!response.headersSent) {
          sendRejection(response, new InternalServerError());
        } else {
          response.destroy();
        }
      },
    );
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
    return reject(options, response, new TooManyConnectionsError(overLimit));
  }
  const { host, expect } = request.headers;
  if (!isValidHost(host, request.httpVersion)) return reject(options, response, new InvalidHostError(host === undefined));
  if (isUnmetExpectation(expect)) return reject(options, response, new ExpectationFailedError(expect));
  const method = request.method ?? 'GET';
  const path = pathOf(request.url ?? '/');
  if (path === HEALTH_PATH) return answerLive(response);
  if (path === READY_PATH) return options.answerReady(response);
  if (options.graphiql?.served && path.startsWith(GRAPHIQL_FILES_PATH)) {
    return serveGraphiqlFile(options, options.graphiql.file, request, response);
  }
  if (path !== GRAPHQL_PATH) {
    return reject(options, response, new NotFoundError(GRAPHQL_PATH));
  }
  if (method === 'OPTIONS') return answerOptions(options.cors, request, response);

  const forged = crossSiteRefusal(method, request.headers, options.cors.allows);
  if (forged) return reject(options, response, forged);

  if (method === 'POST' && !isReadableBody(request.headers['content-type'])) {
    return reject(options, response, new UnsupportedMediaTypeError(request.headers['content-type'], REQUEST_MEDIA_TYPES[0]!));
  }

  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > options.maxBodyBytes) return reject(options, response, new PayloadTooLargeError(options.maxBodyBytes));

  const graphiqlPage = options.graphiql !== undefined && method === 'GET' && (request.headers.accept ?? '').includes('text/html');
  if (!graphiqlPage) {
    const refused = chooseAnswerType(request);
    if (refused) return reject(options, response, refused);
  }

  const address = networkOf(clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], options.trustedProxyCount));
  const checking: AccessDecision | Promise<AccessDecision> = graphiqlPage
    ? { allowed: true, client: { kind: 'anonymous', key: `ip:${address}` } }
    : options.checkAccess(request.headers, address);
  // Awaited only where a bearer token is verified, as the rate limit below.
  const access = checking instanceof Promise ? await checking : checking;
  if (!access.allowed) {
    for (const counted of failedAttemptClients(address, request.socket.remoteAddress)) {
      const deciding = rateLimited(options, counted);
      // Awaited only where the fleet's bucket is asked: an instance alone decides at once, without a microtask turn.
      const limited: Refusal | undefined = deciding instanceof Promise ? await deciding : deciding;
      if (limited) return reject(options, response, limited);
    }
    if (access.refusal instanceof AuthUnavailableError) {
      options.logger.warn({ detail: access.refusal.detail }, 'Bearer token keys unavailable');
    }
    return reject(options, response, access.refusal);
  }

  const deciding = rateLimited(options, access.client);
  const limited: Refusal | undefined = deciding instanceof Promise ? await deciding : deciding;
  if (limited) return reject(options, response, limited, access.client);
  if (graphiqlPage) {
    const graphiql = options.graphiql!;
    return graphiql.served ? graphiql.page(request, response) : reject(options, response, graphiql.refusal(), access.client);
  }

  let body: Buffer | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    if (continueFirst) response.writeContinue();
    body = await readBody(request, options.maxBodyBytes);
    if (body === undefined) return reject(options, response, new PayloadTooLargeError(options.maxBodyBytes), access.client);
    const charging = chargeBatch(options, access.client, body);
    const batchRefused: Refusal | undefined = charging instanceof Promise ? await charging : charging;
    if (batchRefused) return reject(options, response, batchRefused, access.client);
  }
  // Awaited only where Yoga runs: an answer from the response cache is written at once.
  const answering = options.next(request, response, body);
  if (answering instanceof Promise) await answering;
}

/**
 * Replaces the request's Accept with the one media type its q-values prefer,
 * or refuses it when it allows none. Yoga reads Accept without q-values
 * (`application/json;q=0` counts as JSON, and the first type listed wins),
 * so it is handed the negotiated choice instead.
 */
function chooseAnswerType(request: IncomingMessage): Refusal | undefined {
  const { accept } = request.headers;
  if (accept !== undefined && accept.length > MAX_ACCEPT_LENGTH) {
    return new AcceptTooLongError(accept.length, MAX_ACCEPT_LENGTH, ANSWER_MEDIA_TYPES[0]!);
  }
  const answerType = answerTypeFor(accept);
  if (answerType === undefined) return new NotAcceptableError(accept, ANSWER_MEDIA_TYPES);
  request.headers.accept = answerType;
  return undefined;
}

/** A file of GraphiQL's: static, public and the same for everyone, so only the address's rate limit applies. */
async function serveGraphiqlFile(
  options: RequestHandlerOptions,
  file: (request: IncomingMessage, response: ServerResponse) => Promise<boolean>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const method = request.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return reject(options, response, new MethodNotAllowedError(method, ['GET', 'HEAD']));
  const address = networkOf(clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], options.trustedProxyCount));
  const deciding = rateLimited(options, { kind: 'anonymous', key: `ip:${address}` });
  const limited: Refusal | undefined = deciding instanceof Promise ? await deciding : deciding;
  if (limited) return reject(options, response, limited);
  if (!(await file(request, response))) reject(options, response, new NotFoundError(GRAPHQL_PATH));
}

function answerOptions(cors: CorsPolicy, request: IncomingMessage, response: ServerResponse): void {
  const origin = request.headers.origin;
  const preflight = origin !== undefined && request.headers['access-control-request-method'] !== undefined;
  if (preflight && !cors.allows(origin)) {
    sendRejection(response, new CorsOriginNotAllowedError(origin));
    return;
  }
  response.writeHead(204, { allow: 'GET, POST, OPTIONS', ...(preflight ? cors.preflightHeaders(origin) : {}) });
  response.end();
}

/** A refusal when the client is over its rate; a promise only where the fleet's bucket is asked, so one instance alone waits for nothing. */
function rateLimited(options: RequestHandlerOptions, client: Client, count = 1): Refusal | undefined | Promise<Refusal | undefined> {
  const decision = options.rateLimiter?.take(client.key, count);
  return decision instanceof Promise
    ? decision.then((settled) => refusalFor(options, client, settled))
    : refusalFor(options, client, decision);
}

function refusalFor(options: RequestHandlerOptions, client: Client, decision: RateDecision | undefined): Refusal | undefined {
  if (decision === undefined || decision.allowed) return undefined;
  options.onRateLimited(client);
  return new RateLimitedError(decision.retryAfterSeconds);
}

/**
 * Every operation of a batch costs what a request of its own would (each has
 * its own MAX_UPSTREAM_SEARCHES), so a batch takes one rate-limit token per
 * operation: the one taken before reading, and the rest here. Only a body
 * starting with `[` is parsed; a batch Yoga will refuse anyway costs no more.
 */
function chargeBatch(options: RequestHandlerOptions, client: Client, body: Buffer): Refusal | undefined | Promise<Refusal | undefined> {
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
  if (operations > limiter.burst) return new BatchTooLargeError(limiter.burst);
  return rateLimited(options, client, operations - 1);
}

function reject(options: RequestHandlerOptions, response: ServerResponse, refusal: Refusal, client?: Client): void {
  options.logger.info(
    { status: refusal.status, code: refusal.code, client: client?.key, requestId: requestIdOf(response) },
    'Request refused',
  );
  if (bodyStillComing(response.req)) refuseBeforeBody(response, refusal, options.refusalLinger);
  else sendRejection(response, refusal);
}

function bodyStillComing(request: IncomingMessage): boolean {
  const { 'transfer-encoding': chunked, 'content-length': length } = request.headers;
  return !request.complete && (chunked !== undefined || Number(length ?? 0) > 0);
}
