import { connect, type Socket } from 'node:net';

export interface Closed {
  /** How the connection ended: undefined for a clean close (FIN), else the socket error, e.g. ECONNRESET. */
  error: NodeJS.ErrnoException | undefined;
  afterMs: number;
}

/** One TCP connection to a server, for what HTTP clients will not send or hide: bytes exactly as given, everything received. */
export interface RawConnection {
  socket: Socket;
  /** Everything received so far, as latin1 text. */
  readonly received: string;
  /** The received text once `done` says it is complete; rejects if the connection closes first. */
  receive(done: (received: string) => boolean): Promise<string>;
  /** Resolves with the write's outcome: an error once the connection is gone, undefined otherwise. */
  write(data: string | Buffer): Promise<Error | undefined | null>;
  /** Settles when the connection closes, whoever closes it. */
  readonly closed: Promise<Closed>;
  destroy(): void;
}

/** Opens a connection to the host and port of `baseUrl`, once it is established; from `localAddress` when given (e.g. `127.0.0.2`, a second loopback client). */
export function openConnection(baseUrl: string, { localAddress }: { localAddress?: string } = {}): Promise<RawConnection> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect({ port: Number(port), host: hostname, localAddress });
  const openedAt = performance.now();
  let received = '';
  let error: NodeJS.ErrnoException | undefined;
  const waiters = new Set<() => void>();
  socket.on('data', (data: Buffer) => {
    received += data.toString('latin1');
    for (const wake of waiters) wake();
  });
  socket.on('error', (cause: NodeJS.ErrnoException) => {
    error ??= cause;
  });
  const closed = new Promise<Closed>((resolve) => {
    socket.once('close', () => {
      resolve({ error, afterMs: performance.now() - openedAt });
      for (const wake of waiters) wake();
    });
  });
  const connection: RawConnection = {
    socket,
    get received() {
      return received;
    },
    receive(done) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (done(received)) {
            waiters.delete(check);
            resolve(received);
          } else if (socket.destroyed) {
            waiters.delete(check);
            reject(new Error(`The connection closed before all that was awaited arrived; received ${JSON.stringify(received)}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    write(data) {
      return new Promise((resolve) => socket.write(data, resolve));
    },
    closed,
    destroy: () => socket.destroy(),
  };
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(connection));
    socket.once('error', reject);
  });
}

/** Sends `request` as it is on a connection of its own and returns everything received (latin1) once the server closes it. */
export async function rawExchange(baseUrl: string, request: string | Buffer): Promise<string> {
  const connection = await openConnection(baseUrl);
  await connection.write(request);
  await connection.closed;
  return connection.received;
}

/** A final (not 1xx) HTTP/1.1 response whose Content-Length body has fully arrived: status, headers, body. */
const FINAL_RESPONSE = /HTTP\/1\.1 ([2-5]\d\d) [^\r]*\r\n((?:[^\r]+\r\n)*)\r\n/;

export interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The extensions.code of the first GraphQL error in the body, if any. */
  code: string | undefined;
}

/** The first final response in `received`, or undefined while it is not all there. */
export function finalResponse(received: string): ParsedResponse | undefined {
  const match = FINAL_RESPONSE.exec(received);
  if (!match) return undefined;
  const headers = Object.fromEntries(
    match[2]!
      .split('\r\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const start = match.index + match[0].length;
  const length = Number(headers['content-length'] ?? 0);
  if (received.length < start + length) return undefined;
  const body = received.slice(start, start + length);
  const parsed = body.startsWith('{') ? (JSON.parse(body) as { errors?: { extensions?: { code?: string } }[] }) : {};
  return { status: Number(match[1]), headers, body, code: parsed.errors?.[0]?.extensions?.code };
}

/** Waits for the first final response on `connection`. */
export async function receiveResponse(connection: RawConnection): Promise<ParsedResponse> {
  await connection.receive((received) => finalResponse(received) !== undefined);
  return finalResponse(connection.received)!;
}

/** Sends `request` as it is on a connection of its own, waits for the first final response, and closes the connection. */
export async function exchange(baseUrl: string, request: string): Promise<ParsedResponse> {
  const connection = await openConnection(baseUrl);
  await connection.write(request);
  const response = await receiveResponse(connection);
  connection.destroy();
  return response;
}
