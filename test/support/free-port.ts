import { createServer, type AddressInfo } from 'node:net';

/**
 * A port nothing listens on now on loopback, found by listening on port 0 and closing. Only for what must be told a
 * number before it starts (redis-server, a container's published port): whoever binds it next may race another process.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
