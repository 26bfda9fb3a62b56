import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerStarted } from '../protocol.js';

/** Starts `server` on a free loopback port, keeping idle connections 5 s; resolves with its URL. */
export function listenOnLoopback(server: Server): Promise<ServerStarted> {
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}` });
    });
  });
}
