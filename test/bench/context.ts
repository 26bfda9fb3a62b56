import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childPids, HarnessChild } from '../harness/child-process.js';
import type { GatewayStartParams, GatewayStarted, GatewayStats, ProcessStats } from '../harness/protocol.js';
import { Checks } from './checks.js';
import { gatewayEnv } from './gateway-env.js';
import type { BenchOptions } from './options.js';
import type { CpuPlan, Role } from './pinning.js';
import { MachineLoad } from './machine-load.js';
import type { LookupCounts, LookupStarted, ServerStarted } from './protocol.js';
import { QuerySource } from './queries.js';

export interface Server {
  child: HarnessChild;
  url: string;
}

const SCRIPTS = {
  gateway: fileURLToPath(new URL('../harness/gateway-child.ts', import.meta.url)),
  'lookup-service': fileURLToPath(new URL('./children/lookup-service.ts', import.meta.url)),
  'baseline-server': fileURLToPath(new URL('./children/baseline-server.ts', import.meta.url)),
  'proxy-server': fileURLToPath(new URL('./children/proxy-server.ts', import.meta.url)),
};

interface ChildSpec {
  name: string;
  kind: keyof typeof SCRIPTS;
  role: Role;
  nodeFlags?: string[];
  /** The child's whole environment; default: this process's. */
  env?: Record<string, string>;
}

/** Everything a scenario works with: the processes, the searches, and where checks go. */
export interface BenchContext {
  options: BenchOptions;
  cpus: CpuPlan;
  checks: Checks;
  machine: MachineLoad;
  queries: QuerySource;
  lookup: { child: HarnessChild; started: LookupStarted };
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
  const children: HarnessChild[] = [];
  const spawn = async ({ name, kind, role, nodeFlags, env }: ChildSpec) => {
    const child = await HarnessChild.spawn({
      name,
      script: SCRIPTS[kind],
      env: env ?? process.env,
      nodeFlags,
      command: (nodeArgs) => cpus.command(role, nodeArgs),
    });
    children.push(child);
    return child;
  };
  const stop = async () => {
    await Promise.all(children.map((child) => child.stop()));
  };

  try {
    const lookupChild = await spawn({ name: 'lookup', kind: 'lookup-service', role: 'upstream' });
    const started = await lookupChild.call<LookupStarted>('start', { searchLatencyMs: options.upstreamLatencyMs });

    const startGateway = async (name: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<Server> => {
      const child = await spawn({ name, kind: 'gateway', role: 'server', nodeFlags, env: gatewayEnv(options, started, env) });
      return { child, url: (await child.call<GatewayStarted>('start', { log: 'stdout' } satisfies GatewayStartParams)).url };
    };
    const profileFlags = options.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(options.cpuProfDir)}`];

    const startServer = async (name: string, kind: 'baseline-server' | 'proxy-server', params?: unknown): Promise<Server> => {
      const child = await spawn({ name, kind, role: 'server' });
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

export async function cpuUs(server: { child: HarnessChild }): Promise<number> {
  return (await server.child.call<ProcessStats>('stats')).cpuUs;
}

export function gatewayStats(server: Server, method: 'stats' | 'gc' = 'stats'): Promise<GatewayStats> {
  return server.child.call<GatewayStats>(method);
}
