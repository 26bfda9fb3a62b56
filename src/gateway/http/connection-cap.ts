import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';

/**
 * Connections accepted past MAX_CONNECTIONS only to be answered 503, as a
 * share of it (at least one). A client told it is over the limit can tell
 * that from a crash and knows when to retry; but those connections still
 * cost a socket each while their request arrives, so they are few, and
 * Node closes any beyond them at once (server.maxConnections).
 */
export const REFUSED_CONNECTIONS_SHARE = 1 / 16;

/** At most one warning per this long about connections closed unanswered, with how many. */
export const DROPPED_CONNECTIONS_LOG_INTERVAL_MS = 10_000;

export function refusedConnectionsAllowed(maxConnections: number): number {
  return Math.max(1, Math.ceil(maxConnections * REFUSED_CONNECTIONS_SHARE));
}

/**
 * Serves at most `maxConnections` connections at once. A connection accepted
 * while all are taken is refused on its first request, unless one has closed
 * by then.
 */
export class ConnectionCap {
  #served = 0;
  readonly #admitted = new WeakSet<Socket>();
  #dropped = 0;
  #reportTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly maxConnections: number,
    private readonly logger: Logger,
  ) {}

  attach(server: Server): void {
    server.maxConnections = this.maxConnections + refusedConnectionsAllowed(this.maxConnections);
    server.on('connection', (socket: Socket) => void this.#admit(socket));
    server.on('drop', () => {
      this.#dropped += 1;
      if (this.#reportTimer === undefined) this.#reportDropped();
    });
    server.once('close', () => clearTimeout(this.#reportTimer));
  }

  /** Whether a request on `socket` must be refused: its connection is not among those served. */
  isOver(socket: Socket): boolean {
    return !this.#admitted.has(socket) && !this.#admit(socket);
  }

  #admit(socket: Socket): boolean {
    if (this.#served >= this.maxConnections) return false;
    this.#served += 1;
    this.#admitted.add(socket);
    socket.once('close', () => {
      this.#served -= 1;
    });
    return true;
  }

  /** The first drop is reported at once, later ones in one line per interval while they go on, so a flood cannot flood the log. */
  #reportDropped(): void {
    if (this.#dropped === 0) {
      this.#reportTimer = undefined;
      return;
    }
    this.logger.warn(
      { dropped: this.#dropped, maxConnections: this.maxConnections },
      'Connections closed unanswered: over MAX_CONNECTIONS and its share of refusals',
    );
    this.#dropped = 0;
    this.#reportTimer = setTimeout(() => this.#reportDropped(), DROPPED_CONNECTIONS_LOG_INTERVAL_MS).unref();
  }
}
