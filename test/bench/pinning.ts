import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Which cores the contenders and the load run on. */
export interface CpuPlan {
  /** For the report: which core does what, or why nothing is pinned. */
  description: string;
  /** Command and arguments that start `node` on the core for `role`. */
  command(role: Role, nodeArgs: string[]): { file: string; args: string[] };
}

/**
 * `server`: the processes under test (gateway, baseline, bare proxy), alone on their core.
 * `upstream`: the lookup service, on the load generator's core, so that its
 * work never competes with the gateway's and cold latency shows the gateway's
 * own cost; the load it shares the core with is light in the cold scenario.
 */
export type Role = 'server' | 'upstream';

/** Pins this process (the load generator) and plans the children's cores, when taskset and two cores allow. */
export function planCpus(): CpuPlan {
  const unpinned = (why: string): CpuPlan => ({
    description: `not pinned (${why}): servers and load generator share all ${availableParallelism()} cores`,
    command: (_role, nodeArgs) => ({ file: process.execPath, args: nodeArgs }),
  });
  const current = spawnSync('taskset', ['-pc', String(process.pid)], { encoding: 'utf8' });
  if (current.error !== undefined) return unpinned('taskset is not available');
  const cpus = parseCpuList(current.stdout.split(':').at(-1) ?? '');
  const [serverCpu, loadCpu] = cpus;
  if (serverCpu === undefined || loadCpu === undefined) return unpinned(`only ${cpus.length} core is allowed`);
  const pinned = spawnSync('taskset', ['-a', '-pc', String(loadCpu), String(process.pid)], { encoding: 'utf8' });
  if (pinned.status !== 0) return unpinned(`taskset failed: ${pinned.stderr.trim()}`);
  return {
    description: `taskset: the servers under test on CPU ${serverCpu}; load generator and lookup service on CPU ${loadCpu}`,
    command: (role, nodeArgs) => ({
      file: 'taskset',
      args: ['-c', String(role === 'server' ? serverCpu : loadCpu), process.execPath, ...nodeArgs],
    }),
  };
}

/** "0,2-3" → [0, 2, 3]. */
function parseCpuList(list: string): number[] {
  return list
    .trim()
    .split(',')
    .filter((part) => part !== '')
    .flatMap((part) => {
      const [from, to = from] = part.split('-').map(Number);
      if (from === undefined || to === undefined || !Number.isInteger(from) || !Number.isInteger(to)) return [];
      return Array.from({ length: to - from + 1 }, (_, i) => from + i);
    });
}
