import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';

/**
 * How many answers' worth of bytes (MAX_RESPONSE_BYTES each) the gateway
 * holds, in all, for clients that have not taken in what was written to them.
 */
export const UNREAD_ANSWERS_SHARE = 32;

const DISCONNECTED = `Client disconnected: it had not read its answers while the answers held for such clients came to more than their bound (MAX_RESPONSE_BYTES times ${UNREAD_ANSWERS_SHARE})`;

/**
 * The bytes the gateway holds for answers their clients have not taken in,
 * counted by the gateway, and a bound on them. Node keeps whatever an answer
 * hands it until the network takes it: a client that sends requests and never
 * reads has its answers held in the process (its connection's write buffer,
 * and answers to pipelined requests queued behind it) for as long as the
 * socket timeouts let it, and a handful of such clients held more than all
 * the rest of the gateway.
 *
 * Each answer, once its handler has written it whole, is counted: what its
 * connection's socket still holds (`writableLength`: bytes handed to the
 * socket and not yet taken by the network, the one being written included),
 * and the answers queued behind it. An answer the network takes at once, as
 * it does for a client that reads, costs one look at its socket. When the
 * bytes held for every connection come to more than `maxBytes`, the
 * connections holding the most are closed until they come to no more: a
 * client that does not read gets nothing it could take anyway, and those that
 * read are held for little or nothing, so they are closed last.
 */
export class UnreadAnswers {
  /** Connections holding bytes, each with its answers queued behind the one being written (pipelined). */
  readonly #holding = new Map<Socket, Set<ServerResponse>>();
  readonly #watched = new WeakSet<Socket>();

  constructor(
    private readonly maxBytes: number,
    private readonly logger: Logger,
  ) {}

  /** The bytes held now for answers not taken in by their clients. */
  get bytes(): number {
    let total = 0;
    for (const [socket, queued] of this.#holding) total += heldFor(socket, queued);
    return total;
  }

  /** Counts `response`, whose handler has written it whole (or given up on it), and holds the bound. */
  written(response: ServerResponse): void {
    const { socket } = response.req;
    // An answer to a pipelined request waits, whole, behind the ones before it until they are taken in.
    const queued = response.socket === null && response.writableLength > 0 && !socket.destroyed;
    if (!queued && socket.writableLength === 0) return;
    let answers = this.#holding.get(socket);
    if (answers === undefined) {
      answers = new Set();
      this.#holding.set(socket, answers);
      this.#watch(socket);
    }
    if (queued) {
      answers.add(response);
      // Once it is the socket's turn to write it, its bytes are the socket's own.
      const forget = () => answers.delete(response);
      response.once('prefinish', forget);
      response.once('close', forget);
    }
    this.#bound();
  }

  /** Closes the connections holding the most until what is held comes to `maxBytes` at most. */
  #bound(): void {
    const held: [Socket, number][] = [];
    let total = 0;
    for (const [socket, queued] of this.#holding) {
      const bytes = heldFor(socket, queued);
      if (bytes === 0 && queued.size === 0) this.#holding.delete(socket);
      else held.push([socket, bytes]);
      total += bytes;
    }
    if (total <= this.maxBytes) return;
    held.sort((a, b) => b[1] - a[1]);
    for (const [socket, bytes] of held) {
      if (total <= this.maxBytes) break;
      this.logger.warn({ heldBytes: bytes, maxBytes: this.maxBytes }, DISCONNECTED);
      this.#holding.delete(socket);
      socket.destroy();
      total -= bytes;
    }
  }

  #watch(socket: Socket): void {
    if (this.#watched.has(socket)) return;
    this.#watched.add(socket);
    socket.once('close', () => this.#holding.delete(socket));
  }
}

/** What one connection holds: its socket's unwritten bytes and the answers queued behind them. */
function heldFor(socket: Socket, queued: ReadonlySet<ServerResponse>): number {
  if (socket.destroyed) return 0;
  let bytes = socket.writableLength;
  for (const response of queued) bytes += response.writableLength;
  return bytes;
}
