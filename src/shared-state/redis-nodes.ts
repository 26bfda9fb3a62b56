import { createClient, createCluster, createSentinel } from '@redis/client';
import type { RedisTarget } from './redis-target.js';

/** Reconnection waits this long after the first failure, doubling ... */
const RECONNECT_BASE_MS = 50;
/** ... up to this, with jitter so that a fleet does not reconnect in step. */
const RECONNECT_MAX_MS = 2_000;
/**
 * In a cluster, how long a node may be reconnecting before node-redis asks the others for the topology again (and
 * again as long, while it still is): after a master is killed, its replica takes over and only a new topology says so.
 * node-redis's default waits 5 s; it asks only when the node tries to reconnect, so a node's reconnection waits at
 * most as long (CLUSTER_RECONNECT_MAX_MS): trying a dead node's port costs nothing.
 */
const TOPOLOGY_REFRESH_AFTER_MS = 1_000;
const CLUSTER_RECONNECT_MAX_MS = TOPOLOGY_REFRESH_AFTER_MS / 2;

/** Jittered exponential backoff, as node-redis calls it for each reconnection (and the gateway for each new attempt to connect). */
function reconnectDelay(retries: number, maxMs = RECONNECT_MAX_MS): number {
  const ceiling = Math.min(RECONNECT_BASE_MS * 2 ** Math.min(retries, 16), maxMs);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

export interface RedisNodesOptions {
  target: RedisTarget;
  /** With a sentinel target, the sentinels' own password. */
  sentinelPassword?: string | undefined;
  /** How long one attempt to connect may take. */
  connectTimeoutMs: number;
  /** Connected (again), or the topology changed: whether Redis serves the gateway is worth asking now. */
  onReady: () => void;
  /** A connection failed, or finding the topology did; `lost`: the nodes the gateway's keys live on are not reachable now. */
  onError: (error: unknown, lost: boolean) => void;
}

/**
 * The Redis nodes REDIS_URL names, through node-redis's own client for that
 * topology: `createClient` for one node, `createCluster` (which discovers the
 * nodes and follows slots as they move) or `createSentinel` (which asks the
 * sentinels for the master and follows a failover). Every connection is made
 * as CONNECTION says and reconnects by itself; a cluster or sentinel client
 * that could not connect at all is asked again with backoff until closed.
 */
export interface RedisNodes {
  /** One command; `key` routes it to its slot's master in a cluster. */
  send(args: string[], key: string | undefined): Promise<unknown>;
  /** One command to every master the client knows (one node unless a cluster), each on its own. */
  toEveryMaster(args: string[]): Promise<unknown>[];
  /**
   * Listens on a sharded channel (SSUBSCRIBE), on a connection of node-redis's own (one that listens takes no other
   * command), which it subscribes again after a reconnection, a moved slot or a failover.
   */
  subscribe(channel: string, listener: () => void): Promise<unknown>;
  /** Whether the client has connected and knows where to send commands. */
  readonly ready: boolean;
  close(): void;
}

export function connectRedisNodes(options: RedisNodesOptions): RedisNodes {
  switch (options.target.topology) {
    case 'single':
      return singleNode(options.target.url, options);
    case 'cluster':
      return clusterNodes(options.target, options);
    case 'sentinel':
      return sentinelNodes(options.target, options);
  }
}

/**
 * What every connection to a node is made with: no offline queue (a command sent while the node is away fails at
 * once), and no handshake beyond authentication: node-redis's CLIENT SETINFO (which the documented ACL user may not
 * run, leaving an ACL LOG entry per connection) and its maintenance notifications (a Redis Enterprise feature) each
 * cost a round trip on every connection, on the way to sharing.
 */
const CONNECTION = { disableOfflineQueue: true, disableClientInfo: true, maintNotifications: 'disabled' } as const;

function socketOptions(options: RedisNodesOptions, tls: boolean, reconnectMaxMs = RECONNECT_MAX_MS) {
  return {
    connectTimeout: options.connectTimeoutMs,
    reconnectStrategy: (retries: number) => reconnectDelay(retries, reconnectMaxMs),
    ...(tls ? { tls: true as const } : {}),
  };
}

function singleNode(url: URL, options: RedisNodesOptions): RedisNodes {
  const client = createClient({ url: url.href, ...CONNECTION, socket: socketOptions(options, false) });
  client.on('ready', options.onReady);
  // Without a listener node-redis's errors would crash the process; the message names no password.
  client.on('error', (error: unknown) => options.onError(error, true));
  // connect() retries by itself until Redis answers; destroy() ends it.
  client.connect().catch((error: unknown) => options.onError(error, true));
  const listening: (typeof client)[] = [];
  return {
    send: (args) => client.sendCommand(args),
    toEveryMaster: (args) => [client.sendCommand(args)],
    async subscribe(channel, listener) {
      const subscriber = client.duplicate();
      listening.push(subscriber);
      // Its failures are the main connection's too, reported there.
      subscriber.on('error', () => {});
      try {
        await subscriber.connect();
        await subscriber.sSubscribe(channel, () => listener());
      } catch (error) {
        listening.splice(listening.indexOf(subscriber), 1);
        if (subscriber.isOpen) subscriber.destroy();
        throw error;
      }
    },
    get ready() {
      return client.isReady;
    },
    close() {
      client.destroy();
      for (const subscriber of listening) if (subscriber.isOpen) subscriber.destroy();
    },
  };
}

/**
 * Calls `connect` until it succeeds, with backoff, unless `closed()`: node-redis's cluster and sentinel clients give
 * up on a first connection that fails, where a gateway started before its Redis must keep trying.
 */
function keepConnecting(connect: () => Promise<unknown>, closed: () => boolean, options: RedisNodesOptions): void {
  let attempts = 0;
  const attempt = () => {
    if (closed()) return;
    connect().then(
      () => options.onReady(),
      (error: unknown) => {
        options.onError(error, true);
        setTimeout(attempt, reconnectDelay(attempts++)).unref();
      },
    );
  };
  attempt();
}

function clusterNodes(target: Extract<RedisTarget, { topology: 'cluster' }>, options: RedisNodesOptions): RedisNodes {
  const cluster = createCluster({
    rootNodes: target.nodes.map(({ host, port }) => ({ socket: { host, port } })),
    // What every connection to a node is made with: credentials and TLS too (rootNodes' options are not passed on).
    defaults: {
      username: target.username,
      password: target.password,
      ...CONNECTION,
      socket: socketOptions(options, target.tls, CLUSTER_RECONNECT_MAX_MS),
    },
    topologyRefreshOnReconnectionAttemptStrategy: TOPOLOGY_REFRESH_AFTER_MS,
  });
  let closed = false;
  cluster.on('error', (error: unknown) => options.onError(error, !cluster.isReady));
  cluster.on('node-error', (error: unknown) => options.onError(error, true));
  // A node back (a reconnection, or a promoted replica found by a new topology): the cluster may serve again.
  cluster.on('node-ready', options.onReady);
  keepConnecting(
    () => cluster.connect(),
    () => closed,
    options,
  );
  return {
    send: (args, key) => cluster.sendCommand(key, false, args),
    toEveryMaster: (args) => cluster.masters.map(async (master) => (await cluster.nodeClient(master)).sendCommand(args)),
    subscribe: (channel, listener) => cluster.sSubscribe(channel, () => listener()),
    get ready() {
      return cluster.isReady;
    },
    close() {
      closed = true;
      if (cluster.isOpen) cluster.destroy();
    },
  };
}

function sentinelNodes(target: Extract<RedisTarget, { topology: 'sentinel' }>, options: RedisNodesOptions): RedisNodes {
  const sentinel = createSentinel({
    name: target.masterName,
    sentinelRootNodes: target.sentinels,
    nodeClientOptions: {
      username: target.username,
      password: target.password,
      ...CONNECTION,
      socket: socketOptions(options, target.tls),
    },
    sentinelClientOptions: { password: options.sentinelPassword, ...CONNECTION, socket: socketOptions(options, target.tls) },
  });
  let closed = false;
  // A failover's end, or the first master found.
  sentinel.on('ready', options.onReady);
  // The sentinels' own errors (one of several unreachable, a reconfiguration under way) are not the master's: only the
  // master's connection failing, or the sentinels failing to name one, is lost sharing.
  sentinel.on('error', (error: unknown) => options.onError(error, !sentinel.isReady));
  sentinel.on('client-error', (event: { type: string; error: unknown }) => options.onError(event.error, event.type === 'MASTER'));
  keepConnecting(
    () => sentinel.connect(),
    () => closed,
    options,
  );
  return {
    send: (args) => sentinel.sendCommand(false, args),
    toEveryMaster: (args) => [sentinel.sendCommand(false, args)],
    subscribe: (channel, listener) => sentinel.sSubscribe(channel, () => listener()),
    get ready() {
      return sentinel.isReady;
    },
    close() {
      closed = true;
      void sentinel.destroy().catch(() => {});
    },
  };
}
