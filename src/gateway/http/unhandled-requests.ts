import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Refusal } from '../../errors/refusal.js';
import { isLingering } from './early-refusal.js';
import { answerClientError, answerConnect } from './rejection.js';

/**
 * What Node's HTTP server does not hand to a request handler, answered in the
 * gateway's shape where Node would send a bare status line or nothing: a
 * request it could not parse ('clientError') and a CONNECT ('connect').
 * `refused` is told of each refusal sent.
 */
export function answerUnhandledRequests(server: Server, closeWithinMs: number, refused: (refusal: Refusal) => void): void {
  server.on('clientError', (error: Error, socket: Duplex) => {
    // A refusal is already on this socket; a second answer (a 408 at the request timeout) would garble it.
    if (isLingering(socket)) socket.destroy();
    else {
      const refusal = answerClientError(error, socket, closeWithinMs);
      if (refusal) refused(refusal);
    }
  });
  // CONNECT asks for a tunnel: Node hands the socket over, and without this listener closes it without a word.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    refused(answerConnect(request.headers['x-request-id'], socket, closeWithinMs));
  });
}
