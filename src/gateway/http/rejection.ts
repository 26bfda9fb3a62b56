import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Why the node-level checks refused a request, as `extensions.code`. */
export type RejectionCode =
  | 'UNAUTHENTICATED'
  | 'RATE_LIMITED'
  | 'PAYLOAD_TOO_LARGE'
  | 'CROSS_SITE_REQUEST_REFUSED'
  | 'CORS_ORIGIN_NOT_ALLOWED'
  | 'AUTH_UNAVAILABLE'
  | 'NOT_ACCEPTABLE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'NOT_FOUND'
  | 'INTERNAL_SERVER_ERROR'
  | 'BAD_REQUEST'
  | 'REQUEST_TIMEOUT'
  | 'TOO_MANY_CONNECTIONS';

export interface Rejection {
  status: number;
  code: RejectionCode;
  message: string;
  headers?: Record<string, string>;
  /** Stop reading the request: its body is not wanted and the connection is closed after the answer. */
  closeConnection?: boolean;
}

/** A GraphQL-shaped error body, so clients read every refusal the way they read any GraphQL error. */
function rejectionBody(code: RejectionCode, message: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] });
}

export function sendRejection(response: ServerResponse, rejection: Rejection): void {
  writeRejection(response, rejection);
  response.end();
}

/** Writes the whole refusal, status to last byte, and leaves ending the response to the caller. */
export function writeRejection(response: ServerResponse, rejection: Rejection): void {
  const body = rejectionBody(rejection.code, rejection.message);
  response.writeHead(rejection.status, {
    ...rejection.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...(rejection.closeConnection ? { connection: 'close' } : {}),
  });
  response.write(body);
}

/**
 * Answers a request Node could not even parse (its 'clientError' event) in
 * the same shape, where Node would send a bare status line, and closes the
 * connection within `closeWithinMs`. Ending our side is not enough: Node
 * keeps a half-closed socket until the client closes its side, so a client
 * that never does would keep the socket, and its connection slot, for ever.
 * The wait lets a client still sending read the answer rather than a reset.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex, closeWithinMs: number): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message]: [number, RejectionCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'BAD_REQUEST', 'The request headers are larger than this server accepts']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'REQUEST_TIMEOUT', 'The request was not received in time']
        : [400, 'BAD_REQUEST', `The request is not valid HTTP/1.1 (${error.code ?? 'unparsable'})`];
  const body = rejectionBody(code, message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  const timer = setTimeout(() => socket.destroy(), closeWithinMs);
  socket.once('close', () => clearTimeout(timer));
}
