import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { networkOf } from '../access/client-address.js';
import type { Logger } from '../logger.js';

/**
 * Connections accepted past MAX_CONNECTIONS only to be answered 503, as a
 * share of it (at least one). A client told it is over the limit can tell
 * that from a crash and knows when to retry; but those connections still
 * cost a socket each while their request arrives, so they are few, and
 * Node closes any beyond them at once (server.maxConnections). The same
 * share applies to each address's MAX_CONNECTIONS_PER_ADDRESS.
 */
export const REFUSED_CONNECTIONS_SHARE = 1 / 16;

/** At most one warning per this long about connections closed unanswered, with how many. */
export const DROPPED_CONNECTIONS_LOG_INTERVAL_MS = 10_000;

export function refusedConnectionsAllowed(maxConnections: number): number {
  return Math.max(1, Math.ceil(maxConnections * REFUSED_CONNECTIONS_SHARE));
}

export interface ConnectionLimits {
  maxConnections: number;
  /** Most connections served per client address (IPv6 by /64); 0: no such limit. */
  maxPerAddress: number;
}

/** The setting a connection is over, if it is refused. */
export type ConnectionLimitName = 'MAX_CONNECTIONS' | 'MAX_CONNECTIONS_PER_ADDRESS';

/**
 * Serves at most `maxConnections` connections at once, and at most
 * `maxPerAddress` of them from one address, so that one client cannot take
 * every connection from the others (and from the health check). A
 * connection accepted while its limit is reached is refused on its first
 * request, unless one has closed by then. An address holding its served
 * connections and its share of refusals has any further one closed at once:
 * otherwise its connections waiting to be refused (a silent one waits
 * HEADERS_TIMEOUT_MS) could fill every socket Node accepts.
 */
export class ConnectionCap {
  #served = 0;
  /** Per address: its connections open (`open`) and served (`served`); an address leaves the map with its last connection. */
  readonly #addresses = new Map<string, { open: number; served: number }>();
  readonly #admitted = new WeakSet<Socket>();
  #dropped = 0;
  #droppedPerAddress = 0;
  #reportTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly logger: Logger,
  ) {}

  attach(server: Server): void {
    server.maxConnections = this.limits.maxConnections + refusedConnectionsAllowed(this.limits.maxConnections);
    server.on('connection', (socket: Socket) => {
      if (this.#accept(socket)) this.#admit(socket);
    });
    server.on('drop', () => this.#drop());
    server.once('close', () => clearTimeout(this.#reportTimer));
  }

  /** The limit a request on `socket` must be refused for: its connection is not among those served. */
  refusalFor(socket: Socket): ConnectionLimitName | undefined {
    if (this.#admitted.has(socket) || this.#admit(socket)) return undefined;
    return this.#served >= this.limits.maxConnections ? 'MAX_CONNECTIONS' : 'MAX_CONNECTIONS_PER_ADDRESS';
  }

  #accept(socket: Socket): boolean {
    const { maxPerAddress } = this.limits;
    if (maxPerAddress === 0) return true;
    const address = addressOf(socket);
    const counts = this.#addresses.get(address) ?? { open: 0, served: 0 };
    if (counts.open >= maxPerAddress + refusedConnectionsAllowed(maxPerAddress)) {
      socket.destroy();
      this.#droppedPerAddress += 1;
      this.#drop();
      return false;
    }
    counts.open += 1;
    this.#addresses.set(address, counts);
    socket.once('close', () => {
      counts.open -= 1;
      if (counts.open === 0) this.#addresses.delete(address);
    });
    return true;
  }

  #admit(socket: Socket): boolean {
    if (this.#served >= this.limits.maxConnections) return false;
    const counts = this.limits.maxPerAddress === 0 ? undefined : this.#addresses.get(addressOf(socket));
    if (counts !== undefined && counts.served >= this.limits.maxPerAddress) return false;
    this.#served += 1;
    if (counts) counts.served += 1;
    this.#admitted.add(socket);
    socket.once('close', () => {
      this.#served -= 1;
      if (counts) counts.served -= 1;
    });
    return true;
  }

  #drop(): void {
    this.#dropped += 1;
    if (this.#reportTimer === undefined) this.#reportDropped();
  }

  /** The first drop is reported at once, later ones in one line per interval while they go on, so a flood cannot flood the log. */
  #reportDropped(): void {
    if (this.#dropped === 0) {
      this.#reportTimer = undefined;
      return;
    }
    this.logger.warn(
      { dropped: this.#dropped, overAddressLimit: this.#droppedPerAddress, ...this.limits },
      'Connections closed unanswered: over MAX_CONNECTIONS or MAX_CONNECTIONS_PER_ADDRESS and its share of refusals',
    );
    this.#dropped = 0;
    this.#droppedPerAddress = 0;
    this.#reportTimer = setTimeout(() => this.#reportDropped(), DROPPED_CONNECTIONS_LOG_INTERVAL_MS).unref();
  }
}

/** What connections are counted by: the peer's address, IPv6 by /64 as for rate limits. */
function addressOf(socket: Socket): string {
  return networkOf(socket.remoteAddress ?? 'unknown');
}
