import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redisCli, until } from './redis-cli.js';
import { RedisGroup, serverArgs } from './redis-server.js';

/** The name the sentinels know the master by. */
export const MASTER_NAME = 'mymaster';
/** How long a master may not answer before a sentinel takes it to be down: short, so a test's failover is quick. */
export const DOWN_AFTER_MS = 1_000;

/** A master, two replicas and three sentinels this test started on loopback, each run by its PID. */
export interface RedisSentinels {
  /** `redis-sentinel://127.0.0.1:S1,127.0.0.1:S2,127.0.0.1:S3/mymaster`. */
  readonly url: string;
  /** The port of the master now, as the sentinels say. */
  master(): Promise<number>;
  /** `SENTINEL FAILOVER`; resolves once another node is the master and says so itself. */
  failover(): Promise<{ from: number; to: number }>;
  /** SIGKILL the master; resolves once the sentinels have promoted a replica and it says so itself. */
  killMaster(): Promise<{ killed: number; to: number }>;
  /** Stops every process, by PID, and removes their files. */
  stop(): Promise<void>;
}

function sentinelConfig(port: number, masterPort: number): string {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
    `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
    `sentinel failover-timeout ${MASTER_NAME} 5000`,
    '',
  ].join('\n');
}

/** The number of entries `SENTINEL <what> mymaster` lists, asked of the sentinel on `port`. */
async function listed(port: number, what: 'replicas' | 'sentinels'): Promise<number> {
  const output = await redisCli(port, 'SENTINEL', what, MASTER_NAME);
  return output.split('\n').filter((line) => line === 'name').length;
}

async function roleOf(port: number): Promise<string> {
  return (await redisCli(port, 'ROLE')).split('\n')[0]!;
}

/**
 * A master and two replicas (`--replicaof`) and three sentinels monitoring it (quorum 2), on free loopback ports;
 * resolves once every sentinel knows both replicas and the two other sentinels, so that a failover can be asked for
 * and agreed on at once.
 */
export async function startRedisSentinels(): Promise<RedisSentinels> {
  const group = await RedisGroup.create('sentinel');
  let sentinelPorts: number[];
  try {
    sentinelPorts = await group.onFreePorts(6, async ([master, replicaA, replicaB, ...sentinels]) => {
      await group.start(master!, serverArgs(master!));
      for (const replica of [replicaA!, replicaB!])
        await group.start(replica, [...serverArgs(replica), '--replicaof', '127.0.0.1', String(master)]);
      for (const port of sentinels) {
        // Sentinels rewrite their file: each has one of its own, in the group's folder.
        const file = join(group.dir, `sentinel-${port}.conf`);
        await writeFile(file, sentinelConfig(port, master!));
        await group.start(port, [file, '--sentinel']);
      }
      return sentinels;
    });
    await until(async () => {
      const known = await Promise.all(sentinelPorts.map(async (port) => [await listed(port, 'replicas'), await listed(port, 'sentinels')]));
      return known.every(([replicas, sentinels]) => replicas === 2 && sentinels === 2);
    }, 'every sentinel to know both replicas and the other sentinels');
  } catch (error) {
    await group.remove();
    throw error;
  }
  const aliveSentinel = () => sentinelPorts.find((port) => group.runs(port))!;
  const master = async () => {
    const [, port] = (await redisCli(aliveSentinel(), 'SENTINEL', 'get-master-addr-by-name', MASTER_NAME)).trim().split('\n');
    return Number(port);
  };
  /** Resolves once every sentinel names a master other than `old`, and that node says it is one. */
  const promoted = async (old: number) => {
    let to = old;
    await until(async () => {
      const named = await Promise.all(
        sentinelPorts.map(async (port) =>
          Number((await redisCli(port, 'SENTINEL', 'get-master-addr-by-name', MASTER_NAME)).trim().split('\n')[1]),
        ),
      );
      to = named[0]!;
      return to !== old && named.every((port) => port === to) && (await roleOf(to)) === 'master';
    }, `a node other than ${old} to be the master`);
    return to;
  };
  return {
    url: `redis-sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/${MASTER_NAME}`,
    master,
    async failover() {
      const from = await master();
      await redisCli(aliveSentinel(), 'SENTINEL', 'FAILOVER', MASTER_NAME);
      return { from, to: await promoted(from) };
    },
    async killMaster() {
      const killed = await master();
      await group.kill(killed);
      return { killed, to: await promoted(killed) };
    },
    stop: () => group.remove(),
  };
}
