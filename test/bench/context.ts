import { resolve } from 'node:path';
import { Checks } from './checks.js';
import { gatewayEnv } from './gateway-env.js';
import type { BenchOptions } from './options.js';
import type { CpuPlan } from './pinning.js';
import { MachineLoad } from './machine-load.js';
import { BenchChild, childPids, type ChildKind } from './processes.js';
import type { GatewayStats, LookupCounts, LookupStarted, ProcessStats, ServerStarted } from './protocol.js';
import { QuerySource } from './queries.js';

export interface Server {
  child: BenchChild;
  url: string;
}

/** Everything a scenario works with: the processes, the searches, and where checks go. */
export interface BenchContext {
  options: BenchOptions;
  cpus: CpuPlan;
  checks: Checks;
  machine: MachineLoad;
  queries: QuerySource;
  lookup: { child: BenchChild; started: LookupStarted };
  /** The gateway of the hot and cold scenarios. */
  gateway: Server;
  baseline: Server;
  /** The cold scenario's bare proxy in front of the lookup service (children/proxy-server.ts). */
  proxy: Server;
  /** Another gateway process in front of the same lookup service. */
  startGateway(name: string, env: Record<string, string>): Promise<Server>;
  lookupCounts(): Promise<LookupCounts>;
  stop(): Promise<void>;
}

/**
 * No cached search expires during a run, so that every hot answer may be
 * compared byte for byte with the first.
 */
const MAIN_GATEWAY_ENV = { CACHE_TTL_MS: '3600000' };

export async function startContext(options: BenchOptions, cpus: CpuPlan): Promise<BenchContext> {
  const children: BenchChild[] = [];
  const spawn = async (...args: Parameters<typeof BenchChild.spawn>) => {
    const child = await BenchChild.spawn(...args);
    children.push(child);
    return child;
  };
  const stop = async () => {
    await Promise.all(children.map((child) => child.stop()));
  };

  try {
    const lookupChild = await spawn({ name: 'lookup', kind: 'lookup-service', role: 'upstream', cpus });
    const started = await lookupChild.call<LookupStarted>('start', { searchLatencyMs: options.upstreamLatencyMs });

    const startGateway = async (name: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<Server> => {
      const child = await spawn({ name, kind: 'gateway-server', role: 'server', cpus, nodeFlags, env: gatewayEnv(options, started, env) });
      return { child, url: (await child.call<ServerStarted>('start')).url };
    };
    const profileFlags = options.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(options.cpuProfDir)}`];

    const startServer = async (name: string, kind: ChildKind, params?: unknown): Promise<Server> => {
      const child = await spawn({ name, kind, role: 'server', cpus });
      return { child, url: (await child.call<ServerStarted>('start', params)).url };
    };

    const [gateway, baseline, proxy] = await Promise.all([
      startGateway('gateway', MAIN_GATEWAY_ENV, profileFlags),
      startServer('baseline', 'baseline-server'),
      startServer('proxy', 'proxy-server', started),
    ]);
    return {
      options,
      cpus,
      checks: new Checks(),
      machine: new MachineLoad(childPids),
      queries: new QuerySource(),
      lookup: { child: lookupChild, started },
      gateway,
      baseline,
      proxy,
      startGateway: (name, env) => startGateway(name, env),
      lookupCounts: () => lookupChild.call<LookupCounts>('counters'),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export async function cpuUs(server: { child: BenchChild }): Promise<number> {
  return (await server.child.call<ProcessStats>('stats')).cpuUs;
}

export function gatewayStats(server: Server, method: 'stats' | 'gc' = 'stats'): Promise<GatewayStats> {
  return server.child.call<GatewayStats>(method);
}
