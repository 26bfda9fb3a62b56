import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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
      afterEarlierAnswers(socket, () => {
        const refusal = answerClientError(error, socket, closeWithinMs);
        if (refusal) refused(refusal);
      });
    }
  });
  // CONNECT asks for a tunnel: Node hands the socket over, and without this listener closes it without a word.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    // Handed over without its error listener: a client's reset would otherwise throw out of the process.
    socket.on('error', () => socket.destroy());
    afterEarlierAnswers(socket, () => refused(answerConnect(request.headers['x-request-id'], socket, closeWithinMs)));
  });
}

/**
 * Runs `then` once the answers to the requests pipelined before this one (a
 * CONNECT, bytes that do not parse) have been written: Node hands the socket
 * over at once, and a refusal written then would reach the client as the
 * answer to the first of them. Each answer is bounded by its own deadlines;
 * Node attaches the socket to one answer at a time (`_httpMessage`), the next
 * as soon as one finishes. An answer whose request is not complete is this
 * one's own (a body that timed out or broke off), so the refusal is its answer.
 */
function afterEarlierAnswers(socket: Duplex, then: () => void): void {
  const answer = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  // An answer closed unfinished has taken the socket with it: nothing more will be written.
  if (!answer?.req.complete || socket.destroyed) {
    then();
    return;
  }
  const next = () => {
    answer.off('finish', next);
    answer.off('close', next);
    afterEarlierAnswers(socket, then);
  };
  answer.once('finish', next);
  answer.once('close', next);
}
