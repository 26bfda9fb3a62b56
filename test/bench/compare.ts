import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { childPids, HarnessChild } from '../harness/child-process.js';
import { COMPARE_USAGE, type CompareOptions, readCompareOptions } from './compare-options.js';
import { gatewayEnv } from './gateway-env.js';
import { LoadClient } from './load.js';
import { MachineLoad, processCpuUs } from './machine-load.js';
import { checkSearchAnswer, graphqlRequest, SEARCH_COMPANIES } from './operations.js';
import { planCpus, type CpuPlan } from './pinning.js';
import type { LookupStarted } from './protocol.js';
import { QueryCursor, QuerySource } from './queries.js';
import { type Contender, runInterleaved, summarize, type Summary } from './rounds.js';
import { median, percentile } from './stats.js';

const THIS_CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));
const LOOKUP_SCRIPT = fileURLToPath(new URL('./children/lookup-service.ts', import.meta.url));
/** The largest upstream page, as in the cold scenario. */
const PAGE_SIZE = 50;
const WARMUP_CONCURRENCY = 16;

/**
 * `npm run bench:compare -- --baseline DIR`: this checkout's built gateway
 * against another checkout's, on the cold scenario (a new search per
 * request, one in flight), in alternating rounds on the same core, with the
 * same lookup service and the same sequence of searches. Runs of the whole
 * benchmark on a shared machine move by up to 40% from one to the next;
 * alternating rounds of two builds within one run, compared pair by pair,
 * tells a change of a few per cent apart (two copies of one build: 0.995×,
 * quartiles 0.93–1.08× over 10 pairs). Markdown on stdout; exits 1 when an
 * answer was wrong or a CPU reading was unusable, 2 on a bad command line.
 */
async function main(): Promise<number> {
  let options: CompareOptions;
  try {
    options = readCompareOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${COMPARE_USAGE}\n`);
    return 2;
  }
  // Found before anything starts, so that a run asking for more searches than exist stops here.
  const queries = new QuerySource();
  try {
    queries.prepare(searchesNeeded(options));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}: lower --warmup, --rounds or --round-ms\n`);
    return 2;
  }
  const cpus = planCpus();
  const lookup = await HarnessChild.spawn({
    name: 'lookup',
    script: LOOKUP_SCRIPT,
    env: process.env,
    command: (nodeArgs) => cpus.command('upstream', nodeArgs),
  });
  const gateways: BuiltGateway[] = [];
  try {
    const started = await lookup.call<LookupStarted>('start', { searchLatencyMs: options.upstreamLatencyMs });
    for (const [name, checkout] of [
      ['this checkout', THIS_CHECKOUT],
      ['baseline', options.baseline],
    ] as const) {
      gateways.push(await startBuiltGateway(name, checkout, started, cpus));
    }
    const measured = await measure(gateways, queries, options);
    process.stdout.write(report(gateways, measured, options, cpus));
    const wrongAnswers = [...measured.summaries.values()].some(({ failures }) => failures > 0);
    const unusable = measured.pairedRatios.some((ratio) => !Number.isFinite(ratio) || ratio <= 0);
    if (unusable) process.stderr.write('A round had no usable CPU reading (/proc missing, or rounds too short for its 10 ms ticks)\n');
    return wrongAnswers || unusable ? 1 : 0;
  } finally {
    await Promise.all(gateways.map(({ process: child }) => stopProcess(child)));
    await lookup.stop();
  }
}

/** How long a gateway may take to print where it listens. */
const START_TIMEOUT_MS = 60_000;

/** Every gateway process started, killed if this process exits before stopping them (an error, Ctrl-C). */
const runningGateways = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of runningGateways) child.kill('SIGKILL');
});
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => process.exit(code));
}

/** A gateway process that listens at `url`. */
interface BuiltGateway {
  name: string;
  commit: string;
  process: ChildProcess;
  url: string;
}

/** `dist/main.js` of `checkout`, as an operator runs it (the benchmark's environment), on the servers' core. */
async function startBuiltGateway(name: string, checkout: string, upstream: LookupStarted, cpus: CpuPlan): Promise<BuiltGateway> {
  const { file, args } = cpus.command('server', [join(checkout, 'dist', 'main.js')]);
  // No drain delay on stopping: nothing balances load in front of it.
  const env = gatewayEnv({ logLevel: 'info' }, upstream, { SHUTDOWN_DRAIN_DELAY_MS: '0' });
  const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  runningGateways.add(child);
  child.once('exit', () => runningGateways.delete(child));
  const commit =
    (spawnSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout ?? '').trim() || 'unknown';
  // Its log goes to this process, read and dropped, for both gateways alike; the first line says where it listens.
  const lines = createInterface({ input: child.stdout });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`The ${name} gateway did not say where it listens within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      // Once the start has failed otherwise, the timer must not hold this process up.
      timer.unref();
      child.once('error', (error) => reject(new Error(`The ${name} gateway could not start: ${error.message}`)));
      child.once('exit', (code, signal) =>
        reject(new Error(`The ${name} gateway exited (${signal ?? `code ${code}`}) before it listened`)),
      );
      lines.on('line', (line) => {
        const graphql = /"graphql":"(http[^"]+)\/graphql"/.exec(line)?.[1];
        if (graphql === undefined) return;
        clearTimeout(timer);
        resolve(graphql);
      });
    });
    return { name, commit, process: child, url };
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Upper bound of searches one gateway can use: its warm-up, then rounds in which none answers faster than the upstream. */
function searchesNeeded({ warmupRequests, rounds, roundMs, upstreamLatencyMs }: CompareOptions): number {
  const perSecond = 1000 / upstreamLatencyMs;
  return warmupRequests + Math.ceil(((rounds * roundMs) / 1000) * perSecond * 1.05) + 1;
}

interface Measured {
  summaries: Map<string, Summary>;
  /**
   * This checkout's CPU per request over the baseline's, one per pair of
   * rounds run next to each other: the machine drifts between rounds far
   * more than within a pair.
   */
  pairedRatios: number[];
}

/** Each gateway walks `queries` from its start, so both see the same searches. */
async function measure(gateways: BuiltGateway[], queries: QuerySource, options: CompareOptions): Promise<Measured> {
  const contenders: Contender[] = gateways.map(({ name, url, process: child }) => {
    const cursor = new QueryCursor(queries);
    return {
      name,
      client: new LoadClient(url, 1),
      warmup: { client: new LoadClient(url, WARMUP_CONCURRENCY), requests: options.warmupRequests },
      plan: () => ({
        next: () => graphqlRequest('/graphql', SEARCH_COMPANIES, { ...cursor.next(), pageSize: PAGE_SIZE }),
        check: checkSearchAnswer,
      }),
      probes: { serverCpuUs: () => Promise.resolve(processCpuUs(child.pid ?? -1) ?? Number.NaN) },
    };
  });
  const pids = () => [...childPids(), ...gateways.flatMap(({ process: child }) => (child.pid === undefined ? [] : [child.pid]))];
  try {
    const runs = await runInterleaved(contenders, { ...options, warmupMs: 0 }, new MachineLoad(pids));
    const perRequest = (name: string) =>
      (runs.get(name)?.rounds ?? []).map(({ run, growth }) => (growth.serverCpuUs ?? Number.NaN) / run.requests);
    const baseline = perRequest('baseline');
    return {
      summaries: new Map([...runs].map(([name, run]) => [name, summarize(run)])),
      pairedRatios: perRequest('this checkout').map((cpu, round) => cpu / (baseline[round] ?? Number.NaN)),
    };
  } finally {
    await Promise.all(contenders.flatMap(({ client, warmup }) => [client.close(), ...(warmup ? [warmup.client.close()] : [])]));
  }
}

function report(gateways: BuiltGateway[], { summaries, pairedRatios }: Measured, options: CompareOptions, cpus: CpuPlan): string {
  const cpu = (name: string) => summaries.get(name)?.perRequest.serverCpuUs ?? Number.NaN;
  const rows = gateways.map(({ name, commit }) => {
    const summary = summaries.get(name);
    if (summary === undefined) return `| ${name} (${commit}) | no rounds | | | | |`;
    const spread = Math.round((summary.perRequestSpread.serverCpuUs ?? 0) * 100);
    const failed = summary.failures > 0 ? `; ${summary.failures} wrong answers: ${summary.failureSamples.join('; ')}` : '';
    return `| ${name} (${commit}) | ${Math.round(summary.requestsPerSecond)} | ${summary.p50Ms.toFixed(2)} | ${summary.p99Ms.toFixed(2)} | ${Math.round(cpu(name))} ±${spread}%${failed} |`;
  });
  const sortedRatios = Float64Array.from(pairedRatios).sort();
  return [
    '## Cold searches: this checkout against a baseline',
    '',
    `- baseline: ${options.baseline}`,
    `- ${cpus.description}`,
    `- ${options.rounds} rounds of ${options.roundMs} ms per gateway, alternating, after ${options.warmupRequests} searches each (${WARMUP_CONCURRENCY} in flight); a new search per request, 1 in flight; upstream latency ${options.upstreamLatencyMs} ms`,
    '',
    '| Gateway | req/s | p50 ms | p99 ms | server CPU µs/req (median of rounds ±half range) |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `This checkout's CPU per request over the baseline's, round by round next to each other: median ${median(pairedRatios).toFixed(3)}×, quartiles ${percentile(sortedRatios, 25).toFixed(3)}–${percentile(sortedRatios, 75).toFixed(3)}× over ${pairedRatios.length} pairs (${pairedRatios.map((ratio) => ratio.toFixed(3)).join(', ')}).`,
    '',
  ].join('\n');
}

process.exitCode = await main();
