import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChildOptions, childPids, HarnessChild } from '../harness/child-process.js';
import type { GatewayStartParams, GatewayStarted, GatewayStats, ProcessStats } from '../harness/protocol.js';
import { Checks } from './checks.js';
import { THIS_CHECKOUT } from './command-line.js';
import { gatewayEnv } from './gateway-env.js';
import type { BenchOptions } from './options.js';
import type { CpuPlan, Role } from './pinning.js';
import { MachineLoad } from './machine-load.js';
import type { LookupCounts, LookupStarted, ServerStarted } from './protocol.js';
import { QuerySource } from './queries.js';
import type { Contender } from './rounds.js';

export interface Server {
  child: HarnessChild;
  url: string;
}

/** A gateway of another checkout, its built modules run as this one's (see builtGateway). */
export interface CheckoutGateway extends Server {
  name: string;
  /** The checkout's commit, short. */
  commit: string;
}

/** The gateway the scenarios measure, and what it reported as it started. */
export interface MainGateway extends Server {
  /** CACHE_MAX_BYTES as it read it. */
  cacheMaxBytes: number;
  /** Its process right after it started, before any request. */
  atStart: GatewayStats;
}

const SCRIPTS = {
  gateway: fileURLToPath(new URL('../harness/gateway-child.ts', import.meta.url)),
  'lookup-service': fileURLToPath(new URL('./children/lookup-service.ts', import.meta.url)),
  'stored-bytes-server': fileURLToPath(new URL('./children/stored-bytes-server.ts', import.meta.url)),
  'proxy-server': fileURLToPath(new URL('./children/proxy-server.ts', import.meta.url)),
  'mercurius-server': fileURLToPath(new URL('./children/mercurius-server.ts', import.meta.url)),
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
  gateway: MainGateway;
  /** The hot scenarios' physical limit: a bare node:http server writing the gateway's stored bytes (children/stored-bytes-server.ts). */
  storedBytes: Server;
  /** The peer: a plain Mercurius server with graphql-jit over the same schema and lookup service (children/mercurius-server.ts). */
  peer: Server;
  /** With --baseline: that checkout's gateway, which the hot and cold CPU and throughput targets are judged against. */
  checkoutBaseline: CheckoutGateway | undefined;
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

    const modules = builtGateway(THIS_CHECKOUT);
    const startGateway = async (name: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<MainGateway> => {
      const child = await spawn({
        name,
        kind: 'gateway',
        role: 'server',
        nodeFlags,
        env: { ...gatewayEnv(options, started, env), ...modules },
      });
      const { url, cacheMaxBytes } = await child.call<GatewayStarted>('start', { log: 'stdout' } satisfies GatewayStartParams);
      return { child, url, cacheMaxBytes, atStart: await gatewayStats({ child }) };
    };
    const profileFlags = options.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(options.cpuProfDir)}`];

    const startServer = async (
      name: string,
      kind: 'stored-bytes-server' | 'proxy-server' | 'mercurius-server',
      params?: unknown,
    ): Promise<Server> => {
      const child = await spawn({ name, kind, role: 'server' });
      return { child, url: (await child.call<ServerStarted>('start', params)).url };
    };
    const startCheckout = async (checkout: string): Promise<CheckoutGateway> => {
      const gateway = await startCheckoutGateway('baseline gateway', checkout, gatewayEnv(options, started, MAIN_GATEWAY_ENV), cpus);
      children.push(gateway.child);
      return gateway;
    };

    // One after another: all share the servers' core, and on a busy machine five starting at once there each took
    // longer than the harness allows a child to start, where one at a time each gets the core's whole share.
    const gateway = await startGateway('gateway', MAIN_GATEWAY_ENV, profileFlags);
    const storedBytes = await startServer('stored bytes', 'stored-bytes-server');
    const peer = await startServer('mercurius', 'mercurius-server', started);
    const proxy = await startServer('proxy', 'proxy-server', started);
    const checkoutBaseline = options.baseline === undefined ? undefined : await startCheckout(options.baseline);
    return {
      options,
      cpus,
      checks: new Checks(),
      machine: new MachineLoad(childPids),
      queries: new QuerySource(),
      lookup: { child: lookupChild, started },
      gateway,
      storedBytes,
      peer,
      checkoutBaseline,
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

/**
 * The environment that makes the gateway child (test/harness/gateway-child.ts)
 * run `checkout`'s gateway as `npm start` and the image do: its src/
 * compiled to dist/ by its own `tsc -b` (a no-op when dist/ is current),
 * loaded by node. Every gateway measured, this one and a baseline, runs so.
 */
export function builtGateway(checkout: string): { GATEWAY_MODULES: string } {
  const tsc = spawnSync(process.execPath, [join(checkout, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'tsconfig.build.json'], {
    cwd: checkout,
    encoding: 'utf8',
  });
  if (tsc.status !== 0) throw new Error(`Building ${checkout} failed (tsc -b tsconfig.build.json):\n${tsc.stdout}${tsc.stderr}`);
  return { GATEWAY_MODULES: join(checkout, 'dist') };
}

/**
 * The gateway of `checkout` as the benchmark starts its own: this checkout's
 * gateway child running that checkout's built modules (builtGateway), with
 * `env` and `nodeFlags`, on the servers' core, its log written to /dev/null
 * (or with `stdout`, where that says).
 */
export async function startCheckoutGateway(
  name: string,
  checkout: string,
  env: Record<string, string>,
  cpus: CpuPlan,
  nodeFlags: string[] = [],
  stdout?: ChildOptions['stdout'],
): Promise<CheckoutGateway> {
  const child = await HarnessChild.spawn({
    name,
    script: SCRIPTS.gateway,
    env: { ...env, ...builtGateway(checkout) },
    command: (nodeArgs) => cpus.command('server', nodeArgs),
    nodeFlags,
    stdout,
  });
  try {
    const { url } = await child.call<GatewayStarted>('start', { log: 'stdout' } satisfies GatewayStartParams);
    const commit = (spawnSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout ?? '').trim();
    return { name, commit: commit || 'unknown', child, url };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

export async function cpuUs(server: { child: HarnessChild }): Promise<number> {
  return (await server.child.call<ProcessStats>('stats')).cpuUs;
}

/** Time the process has spent in garbage collection pauses (serve-parent.ts), µs. */
export async function gcUs(server: { child: HarnessChild }): Promise<number> {
  return (await server.child.call<ProcessStats>('stats')).gcUs;
}

/** The process's longest GC pause since the last reading, µs: a peak for a contender's rounds. */
export function longestGcPauseUs(server: { child: HarnessChild }): Promise<number> {
  return server.child.call<number>('longestGcPause');
}

/** What a server's contender reads around each round: its CPU and GC time, and its longest GC pause. */
export function serverReadings(server: { child: HarnessChild }): Pick<Contender, 'probes' | 'peaks'> {
  return {
    probes: { serverCpuUs: () => cpuUs(server), serverGcUs: () => gcUs(server) },
    peaks: { longestGcPauseUs: () => longestGcPauseUs(server) },
  };
}

export function gatewayStats(server: { child: HarnessChild }, method: 'stats' | 'gc' = 'stats'): Promise<GatewayStats> {
  return server.child.call<GatewayStats>(method);
}
