import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { HeadersTooLargeError, MalformedHttpError, MethodNotAllowedError, RequestTimeoutError } from '../../errors/http-refusals.js';
import type { Refusal } from '../../errors/refusal.js';
import { noteOutcome, REQUEST_ID_HEADER, requestIdFrom, requestIdOf } from '../observability/observed-response.js';

/** A GraphQL-shaped error body, so clients read every refusal the way they read any GraphQL error, with the request's id. */
function refusalBody(refusal: Refusal, requestId: string | undefined): string {
  return JSON.stringify({ errors: [{ message: refusal.message, extensions: { code: refusal.code, requestId } }] });
}

export function sendRejection(response: ServerResponse, refusal: Refusal): void {
  writeRejection(response, refusal);
  response.end();
}

/** Writes the whole refusal, status to last byte, and leaves ending the response to the caller. */
export function writeRejection(response: ServerResponse, refusal: Refusal, closeConnection = refusal.closeConnection): void {
  const body = refusalBody(refusal, requestIdOf(response));
  noteOutcome(response, 'refused', refusal.code);
  response.writeHead(refusal.status, {
    ...refusal.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...(closeConnection ? { connection: 'close' } : {}),
  });
  response.write(body);
}

/**
 * Answers a request Node could not even parse (its 'clientError' event) in
 * the same shape, where Node would send a bare status line, and closes the
 * connection within `closeWithinMs`.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex, closeWithinMs: number): Refusal | undefined {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return undefined;
  }
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new HeadersTooLargeError()
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new RequestTimeoutError()
        : new MalformedHttpError(error.code);
  // Node could not read the request, so its id header either: a new one.
  answerOnSocket(socket, refusal, requestIdFrom(undefined), closeWithinMs);
  return refusal;
}

/**
 * Answers a `CONNECT` request (Node's 'connect' event), which no route here
 * serves, with a coded 405 where Node would close the connection without a
 * word, and closes the connection within `closeWithinMs`.
 */
export function answerConnect(requestId: string | string[] | undefined, socket: Duplex, closeWithinMs: number): Refusal {
  const refusal = new MethodNotAllowedError('CONNECT', ['GET', 'POST']);
  answerOnSocket(socket, refusal, requestIdFrom(requestId), closeWithinMs);
  return refusal;
}

/**
 * Writes `refusal` on a socket Node's HTTP server has handed over, and closes
 * it within `closeWithinMs`. Ending our side is not enough: Node keeps a
 * half-closed socket until the client closes its side, so a client that never
 * does would keep the socket, and its connection slot, for ever. The wait lets
 * a client still sending read the answer rather than a reset.
 */
function answerOnSocket(socket: Duplex, refusal: Refusal, requestId: string, closeWithinMs: number): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = refusalBody(refusal, requestId);
  const headers = Object.entries(refusal.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${headers.join('')}content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
  );
  const timer = setTimeout(() => socket.destroy(), closeWithinMs);
  socket.once('close', () => clearTimeout(timer));
}
