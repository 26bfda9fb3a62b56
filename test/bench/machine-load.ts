import { readFileSync } from 'node:fs';

/** Linux reports CPU time in /proc in USER_HZ ticks, 100 per second on every mainstream architecture. */
const TICK_US = 10_000;

/**
 * CPU time the rest of the machine spent: all cores' busy time in
 * /proc/stat less that of this process and the benchmark's children. On a
 * shared machine (other test runs, builds) this says whether a round was
 * disturbed. Tick resolution (10 ms) is fine against rounds of seconds.
 */
export class MachineLoad {
  constructor(private readonly ownPids: () => number[]) {}

  /** Cumulative µs of CPU used by processes other than the benchmark's; 0 where /proc is missing. */
  othersUs(): number {
    const busy = this.#busyTicks();
    if (busy === undefined) return 0;
    const own = [process.pid, ...this.ownPids()].reduce((sum, pid) => sum + (processTicks(pid) ?? 0), 0);
    return (busy - own) * TICK_US;
  }

  #busyTicks(): number | undefined {
    try {
      const total = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
      // cpu user nice system idle iowait irq softirq steal ...: interrupt time is left out, as most of it
      // is the benchmark's own loopback traffic, which no process is charged for.
      const [, user, nice, system, , , , , steal] = total.trim().split(/\s+/).map(Number);
      return [user, nice, system, steal].reduce<number>((sum, ticks) => sum + (ticks ?? 0), 0);
    } catch {
      return undefined;
    }
  }
}

/** utime + stime of a process, all threads, in ticks. */
function processTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name, which may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}
