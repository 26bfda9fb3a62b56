import { redisCli, until } from './redis-cli.js';
import { RedisGroup, serverArgs } from './redis-server.js';

/** How long a cluster node waits for another before it takes it to have failed: short, so a test's failover is quick. */
export const CLUSTER_NODE_TIMEOUT_MS = 2_000;

/** A Redis Cluster this test started on loopback: each node a redis-server of its own, run by its PID. */
export interface RedisCluster {
  /** `redis-cluster://127.0.0.1:P1,127.0.0.1:P2,…` (every node: the gateway discovers the rest from any). */
  readonly url: string;
  readonly ports: readonly number[];
  /** The masters' ports now, as the cluster itself says. */
  masters(): Promise<number[]>;
  /** `CLUSTER FAILOVER` on a replica of a master; resolves once the replica is a master and the cluster is ok again. */
  failover(): Promise<{ from: number; to: number }>;
  /** SIGKILL a master that has a replica; resolves once its replica has taken over and the cluster is ok again. */
  killMaster(): Promise<{ killed: number; to: number }>;
  /** Stops every node, by PID, and removes their files. */
  stop(): Promise<void>;
}

interface Node {
  id: string;
  port: number;
  master: boolean;
  failed: boolean;
  /** The id of its master, for a replica. */
  masterId: string | undefined;
}

/** `CLUSTER NODES` as seen from `port`. */
async function nodesSeenFrom(port: number): Promise<Node[]> {
  const lines = (await redisCli(port, 'CLUSTER', 'NODES')).trim().split('\n');
  return lines.map((line) => {
    const [id, address, flags, masterId] = line.split(' ') as [string, string, string, string];
    const nodeFlags = flags.split(',');
    return {
      id,
      port: Number(address.split('@')[0]!.split(':')[1]),
      master: nodeFlags.includes('master'),
      failed: nodeFlags.includes('fail') || nodeFlags.includes('fail?'),
      masterId: masterId === '-' ? undefined : masterId,
    };
  });
}

async function clusterOk(port: number): Promise<boolean> {
  return (await redisCli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok');
}

/** Whether `port`, if a replica, has finished its first sync with its master (a master: yes). */
async function replicaInSync(port: number): Promise<boolean> {
  const info = await redisCli(port, 'INFO', 'replication');
  if (info.includes('role:master')) return true;
  return info.includes('master_link_status:up') && !info.includes('master_sync_in_progress:1');
}

/**
 * Three masters, each with a replica unless `replicas` is false, on free loopback ports (each with its bus port free
 * too), made a cluster by `redis-cli --cluster create`; resolves once every node says the cluster is ok and each
 * replica is in sync with its master, so that a failover can be asked for at once.
 */
export async function startRedisCluster(options: { replicas?: boolean } = {}): Promise<RedisCluster> {
  const replicasEach = options.replicas === false ? 0 : 1;
  const nodes = await RedisGroup.create('cluster');
  let ports: number[];
  try {
    ports = await nodes.onFreePorts(
      3 * (1 + replicasEach),
      async (candidates) => {
        for (const port of candidates) {
          const args = [...serverArgs(port), '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`];
          await nodes.start(port, [...args, '--cluster-node-timeout', String(CLUSTER_NODE_TIMEOUT_MS)]);
        }
        return candidates;
      },
      { bus: true },
    );
    await redisCli(
      ports[0]!,
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      String(replicasEach),
      '--cluster-yes',
    );
    await until(async () => (await Promise.all(ports.map(clusterOk))).every(Boolean), 'the cluster to be ok on every node');
    await until(async () => {
      const replicas = (await nodesSeenFrom(ports[0]!)).filter((node) => !node.master);
      return replicas.length === 3 * replicasEach && (await Promise.all(ports.map(replicaInSync))).every(Boolean);
    }, 'every replica to be in sync with its master');
  } catch (error) {
    await nodes.remove();
    throw error;
  }
  const alive = () => ports.filter((port) => nodes.runs(port));
  /** Resolves once `promoted` is a master, every running node says the cluster is ok, and `gone` (if any) is seen failed. */
  const settled = async (promoted: number, gone?: number) => {
    await until(async () => {
      const seen = await nodesSeenFrom(alive()[0]!);
      const everyNodeOk = (await Promise.all(alive().map(clusterOk))).every(Boolean);
      const goneSeen = gone === undefined || seen.find((node) => node.port === gone)?.failed === true;
      return seen.find((node) => node.port === promoted)?.master === true && everyNodeOk && goneSeen;
    }, `node ${promoted} to be a master of a cluster that is ok`);
  };
  /** A master and its replica, both running. */
  const pair = async () => {
    const seen = await nodesSeenFrom(alive()[0]!);
    for (const master of seen.filter((node) => node.master && !node.failed && nodes.runs(node.port))) {
      const replica = seen.find((node) => node.masterId === master.id && !node.failed && nodes.runs(node.port));
      if (replica) return { master: master.port, replica: replica.port };
    }
    throw new Error('no master with a running replica is left');
  };
  return {
    url: `redis-cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
    ports,
    async masters() {
      return (await nodesSeenFrom(alive()[0]!)).filter((node) => node.master && !node.failed).map((node) => node.port);
    },
    async failover() {
      const { master, replica } = await pair();
      await redisCli(replica, 'CLUSTER', 'FAILOVER');
      await settled(replica);
      return { from: master, to: replica };
    },
    async killMaster() {
      const { master, replica } = await pair();
      await nodes.kill(master);
      await settled(replica, master);
      return { killed: master, to: replica };
    },
    stop: () => nodes.remove(),
  };
}
