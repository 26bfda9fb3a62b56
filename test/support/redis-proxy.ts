import { type AddressInfo, createServer, type Socket } from 'node:net';
import { bridge } from './counting-proxy.js';

/** A loopback TCP proxy in front of one Redis, as a network between a gateway and it: slow, or cut, when the test says. */
export interface RedisProxy {
  /** `redis://127.0.0.1:<port>` (with the target's password): Redis seen through the proxy. */
  readonly url: string;
  /** How long each reply from Redis is held before it is passed on (0: at once); replies keep their order. */
  delayMs: number;
  /** Writes clients have sent Redis so far: one per round trip while one request at a time asks (pipelined commands go together). */
  readonly writes: number;
  /** Resolves once every reply held back so far has been passed on. */
  drained(): Promise<void>;
  /** Holds every reply from now on, however long, until the function returned is called (then passes them on, in order). */
  hold(): () => void;
  /** Resets the connections and refuses new ones, as a network partition does, until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy to the Redis at `target` (`redis://[:password@]127.0.0.1:port`). */
export async function startRedisProxy(target: string): Promise<RedisProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let writes = 0;
  let cut = false;
  /** Replies still held back, across connections: drained() waits for them. */
  let holding: Promise<void> = Promise.resolve();
  /** While the test holds replies: what passes them on. */
  let held: Promise<void> | undefined;
  const proxy = { delayMs: 0 };
  const server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = bridge(client, hostname, Number(port), sockets);
    client.on('data', (chunk: Buffer) => {
      writes += 1;
      upstream.write(chunk);
    });
    // Each chunk is held for the delay from its arrival, and never passes one held before it: replies keep their order.
    let previous: Promise<void> = Promise.resolve();
    upstream.on('data', (chunk: Buffer) => {
      const delayMs = proxy.delayMs;
      const delayed = delayMs > 0 ? new Promise<void>((resolve) => setTimeout(resolve, delayMs)) : Promise.resolve();
      previous = Promise.all([previous, delayed, held]).then(() => {
        if (!client.destroyed) client.write(chunk);
      });
      holding = Promise.all([holding, previous]).then(() => {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.href.replace(/\/$/, ''),
    get delayMs() {
      return proxy.delayMs;
    },
    set delayMs(ms: number) {
      proxy.delayMs = ms;
    },
    get writes() {
      return writes;
    },
    drained: () => holding,
    hold() {
      let release = () => {};
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
