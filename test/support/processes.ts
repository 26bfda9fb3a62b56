import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** A process and the moment it started (clock ticks since boot), so that its pid, reused later, is not taken for it. */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

/** Fields of /proc/<pid>/stat from the state on (the command name before them may hold spaces and parentheses), or undefined once the process is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function identityOf(pid: number): ProcessIdentity | undefined {
  // starttime is field 22 of stat; the fields here start at field 3, the state.
  const startTime = statFields(pid)?.[19];
  return startTime === undefined ? undefined : { pid, startTime };
}

/** Every process below `pid` (children, their children, …), as Linux's /proc lists them now. */
export function descendantsOf(pid: number): ProcessIdentity[] {
  const children = readdirSync(`/proc/${pid}/task`, { withFileTypes: true }).flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task.name}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return children.flatMap((child) => {
    const identity = identityOf(child);
    return identity === undefined ? [] : [identity, ...descendantsOf(child)];
  });
}

/** Whether that very process still runs (a zombie, dead but not yet reaped, does not). */
export function isRunning({ pid, startTime }: ProcessIdentity): boolean {
  const fields = statFields(pid);
  return fields !== undefined && fields[19] === startTime && fields[0] !== 'Z';
}

/** Whether anything accepts a TCP connection at `url`'s host and port. */
export function isListening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Stops a child this test started, by its PID, and waits for it to be gone; `signal` lets one that has children of its own stop them. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}
