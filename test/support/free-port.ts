import { createServer, type AddressInfo, type Server } from 'node:net';

/** The cluster bus of a Redis Cluster node listens on its port plus this. */
export const CLUSTER_BUS_OFFSET = 10_000;

function listen(port: number): Promise<Server | undefined> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(undefined));
    probe.listen(port, '127.0.0.1', () => resolve(probe));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * A port nothing listens on now on loopback, found by listening on port 0 and closing. Only for what must be told a
 * number before it starts (redis-server, a container's published port): whoever binds it next may race another process.
 */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `count` distinct ports nothing listens on now on loopback, all held until every one is found (so none is given
 * twice). With `bus`, each port's cluster bus (port + 10000) is free too, and within the 65535 ports there are.
 * As freePort, whoever binds them next may race another process: the caller tries again if its start fails.
 */
export async function freePorts(count: number, bus = false): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      const probe = await listen(0);
      if (probe === undefined) continue;
      held.push(probe);
      const { port } = probe.address() as AddressInfo;
      if (!bus) {
        ports.push(port);
        continue;
      }
      if (port + CLUSTER_BUS_OFFSET > 65_535) continue;
      const busProbe = await listen(port + CLUSTER_BUS_OFFSET);
      if (busProbe === undefined) continue;
      held.push(busProbe);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(held.map(close));
  }
}
