import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { AdminPathNotFoundError, AdminUnauthenticatedError } from '../../errors/admin-refusals.js';
import { MethodNotAllowedError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors/http-refusals.js';
import { InternalServerError } from '../../errors/internal-error.js';
import type { Refusal } from '../../errors/refusal.js';
import { ClientGoneError, readBody } from '../../shared/request-body.js';
import { listen } from '../http/listen.js';
import { sendRejection } from '../http/rejection.js';
import type { Logger } from '../logger.js';
import { type FleetPurges, PURGE_CHECK_INTERVAL_MS, type PurgeOutcome } from './fleet-purges.js';
import { purgeTagOf } from './purge-target.js';

export const PURGE_PATH = '/purge';

/** Shortest ADMIN_TOKEN accepted: 256 bits of base64, out of reach of guessing. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** Operators and their scripts are on the same network and quick; one that hangs is let go. */
const ADMIN_REQUEST_TIMEOUT_MS = 10_000;
/** A person with curl or a script, not a crowd. */
const ADMIN_MAX_CONNECTIONS = 16;
/** Far above the longest purge body (a tag of a 50-character company number, percent-encoded). */
const MAX_PURGE_BODY_BYTES = 16 * 1024;

export interface AdminServerOptions {
  host: string;
  port: number;
  /** The bearer token every request must carry (ADMIN_TOKEN): compared by digest, in constant time, and never logged. */
  token: string;
  purges: FleetPurges;
  logger: Logger;
}

export interface AdminServer {
  /** e.g. `http://127.0.0.1:9465`. */
  url: string;
  close(): Promise<void>;
}

/**
 * The admin server: `POST /purge` on an address of its own (ADMIN_HOST,
 * ADMIN_PORT), never the public port, for operators holding ADMIN_TOKEN. The
 * token is checked before the body is read; every refusal is coded, as the
 * public port's are.
 */
export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const expected = digest(options.token);
  const server = createServer(
    { headersTimeout: ADMIN_REQUEST_TIMEOUT_MS, requestTimeout: ADMIN_REQUEST_TIMEOUT_MS },
    (request, response) => {
      answer(request, response, expected, options).catch((error: unknown) => {
        if (error instanceof ClientGoneError) return response.destroy();
        options.logger.error({ err: error }, 'Admin request failed');
        if (!response.headersSent) sendRejection(response, new InternalServerError());
        else response.destroy();
      });
    },
  );
  server.maxConnections = ADMIN_MAX_CONNECTIONS;
  const url = await listen(server, options.host, options.port, { host: 'ADMIN_HOST', port: 'ADMIN_PORT' });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, expected: Buffer, options: AdminServerOptions): Promise<void> {
  const refuse = (refusal: Refusal) => sendRejection(response, refusal);
  const path = (request.url ?? '/').split('?', 1)[0];
  if (path !== PURGE_PATH) return refuse(new AdminPathNotFoundError(PURGE_PATH));
  if (request.method !== 'POST') return refuse(new MethodNotAllowedError(request.method ?? '', ['POST']));
  const token = bearerToken(request.headers.authorization);
  if (token === undefined || !timingSafeEqual(digest(token), expected)) {
    options.logger.warn({ by: requesterOf(request), tokenGiven: token !== undefined }, 'Admin request refused: no admin token, or another');
    return refuse(new AdminUnauthenticatedError(token !== undefined));
  }
  const contentType = request.headers['content-type'];
  if ((contentType ?? '').split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
    return refuse(new UnsupportedMediaTypeError(contentType, 'application/json'));
  }
  const body = await readBody(request, MAX_PURGE_BODY_BYTES);
  if (body === undefined) return refuse(new PayloadTooLargeError(MAX_PURGE_BODY_BYTES));
  const tag = purgeTagOf(body);
  if (typeof tag !== 'string') return refuse(tag);
  const outcome = await options.purges.purge(tag, requesterOf(request));
  const reply = JSON.stringify(replyOf(outcome));
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(reply),
    'cache-control': 'no-store',
  });
  response.end(reply);
}

/** What the purge dropped, and how far it reached. */
function replyOf(outcome: PurgeOutcome): Record<string, unknown> {
  const reach =
    outcome.shared !== undefined
      ? `Purged on Redis and here; every other instance applies it within ${PURGE_CHECK_INTERVAL_MS / 1000} s`
      : outcome.fleet
        ? 'Redis did not answer: only this instance purged. The purge is sent to the fleet once Redis answers again'
        : 'No REDIS_URL: this instance is the whole fleet, and purged';
  return {
    tag: outcome.tag,
    dropped: {
      windows: outcome.memory.windows,
      answers: outcome.memory.answers,
      ...(outcome.shared !== undefined && { redisWindows: outcome.shared }),
    },
    fleet: outcome.shared !== undefined,
    message: reach,
  };
}

/** Who asked, as far as the request says: its address and the client it names. Never the token. */
function requesterOf(request: IncomingMessage): Record<string, string | undefined> {
  return { address: request.socket.remoteAddress, userAgent: request.headers['user-agent']?.slice(0, 200) };
}

function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return match?.[1];
}

/** Equal-length digests, so that comparing them takes as long whatever the token given. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
