import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';

/** How long a client may leave its connection without a byte moving, and how long it may take to read one answer. */
export interface SocketTimeouts {
  idleMs: number;
  answerWriteMs: number;
}

/**
 * Bounds what a client that stops reading can hold: the answers written to
 * it wait in the process's memory, with its connection slot, for as long as
 * it keeps the connection open. Node's own timeouts cover a request that is
 * slow to arrive (headers and request timeouts) and a keep-alive connection
 * between requests, nothing while an answer is being written.
 *
 * - Idle: no byte moved either way for `idleMs` closes the connection, unless
 *   an answer on it is still being worked out (the request's own deadline
 *   bounds that wait, and a quiet client is then no fault of its own).
 * - Answer write: an answer not handed over to the network within
 *   `answerWriteMs` of being complete closes its connection, so a client that
 *   reads a byte now and then, never idle, cannot hold an answer for ever.
 */
export function applySocketTimeouts(server: Server, timeouts: SocketTimeouts, logger: Logger): void {
  /** The answers of each socket not yet handed over to it; pipelined ones wait there behind the one being written. */
  const pending = new WeakMap<Socket, Set<ServerResponse>>();
  // Listeners shared by every answer (`this`), not closures made for each; each event comes once, so on() spares once()'s wrappers.
  function forget(this: ServerResponse): void {
    pending.get(this.req.socket)?.delete(this);
  }
  function handedOver(this: ServerResponse): void {
    forget.call(this);
    const { socket } = this.req;
    // Nothing left in the process: the network took it all at once, as it does for a client that reads, and 'finish'
    // follows; a timer per answer would be work for nothing. Bytes waiting here mean the client has fallen behind.
    if (socket.writableLength === 0) return;
    const timer = setTimeout(() => {
      logger.info(
        { timeoutMs: timeouts.answerWriteMs },
        'Client disconnected: it did not read its answer within RESPONSE_WRITE_TIMEOUT_MS',
      );
      socket.destroy();
    }, timeouts.answerWriteMs);
    this.once('finish', () => clearTimeout(timer));
    this.once('close', () => clearTimeout(timer));
  }
  const track = (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    const answers = pending.get(socket);
    if (answers === undefined) pending.set(socket, new Set([response]));
    else answers.add(response);
    // 'prefinish': the whole answer is written and handed to the socket (only now for one that waited behind earlier pipelined answers).
    response.on('prefinish', handedOver);
    response.on('close', forget);
  };
  // First, so that an answer its handler completes at once is tracked too; requests with `Expect` come by the other two events.
  server.prependListener('request', track);
  server.prependListener('checkContinue', track);
  server.prependListener('checkExpectation', track);

  server.timeout = timeouts.idleMs;
  // With a listener here Node no longer destroys a socket on its idle or keep-alive timeout by itself: this decides.
  server.on('timeout', (socket: Socket) => {
    // writableEnded: the handler has written its whole answer; one that has not is still working it out.
    for (const answer of pending.get(socket) ?? []) if (!answer.writableEnded) return;
    logger.debug({ timeoutMs: timeouts.idleMs }, 'Connection closed: idle');
    socket.destroy();
  });
}
