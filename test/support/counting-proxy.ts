import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  /** `http://127.0.0.1:<port>`: the target's origin, seen through the proxy. */
  url: string;
  /** Bytes the target has sent to clients so far, headers included: what a browser's network moved. */
  readonly bytesToClients: number;
  close(): Promise<void>;
}

/**
 * A connection to `host`:`port` for `client`, both kept in `sockets` while open: either one failing or closing
 * closes both, as a proxy in between would.
 */
export function bridge(client: Socket, host: string, port: number, sockets: Set<Socket>): Socket {
  const upstream = connect({ host, port });
  for (const socket of [client, upstream]) {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      client.destroy();
      upstream.destroy();
    });
    socket.on('error', () => {
      client.destroy();
      upstream.destroy();
    });
  }
  return upstream;
}

/** A loopback TCP proxy to `target` that counts what reaches its clients, whoever asks and however (a page, its workers, its fetches). */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const { hostname, port } = new URL(target);
  let bytesToClients = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = bridge(client, hostname, Number(port), sockets);
    upstream.on('data', (chunk: Buffer) => (bytesToClients += chunk.length));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get bytesToClients() {
      return bytesToClients;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
