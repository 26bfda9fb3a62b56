import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childPids, HarnessChild } from '../harness/child-process.js';
import { readCommandLine, THIS_CHECKOUT } from './command-line.js';
import { COMPARE_USAGE, type CompareOptions, readCompareOptions } from './compare-options.js';
import { gatewayEnv } from './gateway-env.js';
import { gcTraceLines, summarizeGcTrace } from './gc-trace.js';
import { LoadClient } from './load.js';
import { type CheckoutGateway, serverReadings, startCheckoutGateway } from './context.js';
import { MachineLoad } from './machine-load.js';
import { planCpus, type CpuPlan } from './pinning.js';
import type { LookupStarted } from './protocol.js';
import { QueryCursor, QuerySource } from './queries.js';
import { type Contender, cpuPerRequest, ratiosOfPairs, runInterleaved, summarize, type Summary } from './rounds.js';
import { coldGraphqlSearches, coldSearchesNeeded } from './scenarios/cold.js';
import { median, percentile } from './stats.js';

const LOOKUP_SCRIPT = fileURLToPath(new URL('./children/lookup-service.ts', import.meta.url));
const WARMUP_CONCURRENCY = 16;

/**
 * `npm run bench:compare -- --baseline DIR`: this checkout's gateway
 * against another checkout's, on the cold scenario (a new search per
 * request, one in flight), in alternating rounds on the same core, with the
 * same lookup service and the same sequence of searches. Runs of the whole
 * benchmark on a shared machine move a lot from one to the next;
 * alternating rounds of two builds within one run, compared pair by pair,
 * tell much smaller changes apart (docs/performance.md describes the method).
 * Markdown on stdout; exits 1 when an answer was wrong or a round answered
 * nothing, 2 on a bad command line.
 */
async function main(): Promise<number> {
  const options = readCommandLine(readCompareOptions, COMPARE_USAGE);
  if (options === undefined) return 2;
  // Found before anything starts, so that a run asking for more searches than exist stops here.
  const queries = new QuerySource();
  try {
    queries.prepare(coldSearchesNeeded({ ...options, warmupInFlight: WARMUP_CONCURRENCY, inFlight: 1 }));
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
  const gateways: CheckoutGateway[] = [];
  try {
    const started = await lookup.call<LookupStarted>('start', { searchLatencyMs: options.upstreamLatencyMs });
    const traces = options.traceGcDir;
    if (traces !== undefined) mkdirSync(traces, { recursive: true });
    for (const [name, checkout, folder] of [
      ['this checkout', THIS_CHECKOUT, 'this-checkout'],
      ['baseline', options.baseline, 'baseline'],
    ] as const) {
      const profile = options.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfDir, folder)}`];
      const flags = [...profile, ...(traces === undefined ? [] : ['--trace-gc'])];
      const stdout = traces === undefined ? undefined : { file: join(traces, `${folder}.log`) };
      gateways.push(await startCheckoutGateway(name, checkout, gatewayEnv({ logLevel: 'info' }, started, {}), cpus, flags, stdout));
    }
    const measured = await measure(gateways, queries, options);
    // Stopped first, so that each trace is whole.
    await Promise.all(gateways.map(({ child }) => child.stop()));
    process.stdout.write(report(gateways, measured, options, cpus));
    if (traces !== undefined) {
      const lines = [
        '',
        `Collections traced (--trace-gc, the whole run, warm-up included; logs in ${traces}):`,
        '',
        ...gcTraceLines('this checkout', summarizeGcTrace(join(traces, 'this-checkout.log'))),
        ...gcTraceLines('baseline', summarizeGcTrace(join(traces, 'baseline.log'))),
        '',
      ];
      process.stdout.write(lines.join('\n'));
    }
    const wrongAnswers = [...measured.summaries.values()].some(({ failures }) => failures > 0);
    const unusable = measured.pairedRatios.some((ratio) => !Number.isFinite(ratio) || ratio <= 0);
    if (unusable) process.stderr.write('A round had no CPU per request to compare: it answered no request\n');
    return wrongAnswers || unusable ? 1 : 0;
  } finally {
    await Promise.all(gateways.map(({ child }) => child.stop()));
    await lookup.stop();
  }
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
async function measure(gateways: CheckoutGateway[], queries: QuerySource, options: CompareOptions): Promise<Measured> {
  const contenders: Contender[] = gateways.map((gateway) => {
    const { name, url } = gateway;
    return {
      name,
      client: new LoadClient(url, 1),
      warmup: { client: new LoadClient(url, WARMUP_CONCURRENCY), requests: options.warmupRequests },
      plan: coldGraphqlSearches(new QueryCursor(queries)),
      ...serverReadings(gateway),
    };
  });
  try {
    const runs = await runInterleaved(contenders, { ...options, warmupMs: 0 }, new MachineLoad(childPids));
    return {
      summaries: new Map([...runs].map(([name, run]) => [name, summarize(run)])),
      pairedRatios: ratiosOfPairs(runs, 'this checkout', 'baseline', cpuPerRequest),
    };
  } finally {
    await Promise.all(contenders.flatMap(({ client, warmup }) => [client.close(), ...(warmup ? [warmup.client.close()] : [])]));
  }
}

function report(gateways: CheckoutGateway[], { summaries, pairedRatios }: Measured, options: CompareOptions, cpus: CpuPlan): string {
  const cpu = (name: string) => summaries.get(name)?.perRequest.serverCpuUs ?? Number.NaN;
  const rows = gateways.map(({ name, commit }) => {
    const summary = summaries.get(name);
    if (summary === undefined) return `| ${name} (${commit}) | no rounds | | | | | | |`;
    const spread = Math.round((summary.perRequestSpread.serverCpuUs ?? 0) * 100);
    const failed = summary.failures > 0 ? `; ${summary.failures} wrong answers: ${summary.failureSamples.join('; ')}` : '';
    const gc = `${Math.round(summary.perRequest.serverGcUs ?? Number.NaN)} | ${((summary.peaks.longestGcPauseUs ?? Number.NaN) / 1000).toFixed(1)}`;
    return `| ${name} (${commit}) | ${Math.round(summary.requestsPerSecond)} | ${summary.p50Ms.toFixed(2)} | ${summary.p99Ms.toFixed(2)} | ${Math.round(cpu(name))} ±${spread}%${failed} | ${gc} |`;
  });
  const sortedRatios = Float64Array.from(pairedRatios).sort();
  return [
    '## Cold searches: this checkout against a baseline',
    '',
    `- baseline: ${options.baseline}`,
    `- ${cpus.description}`,
    `- ${options.rounds} rounds of ${options.roundMs} ms per gateway, alternating, after ${options.warmupRequests} searches each (${WARMUP_CONCURRENCY} in flight); a new search per request, 1 in flight; upstream latency ${options.upstreamLatencyMs} ms`,
    '',
    '| Gateway | req/s | p50 ms | p99 ms | server CPU µs/req (median of rounds ±half range) | GC pauses µs/req | longest GC pause ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `This checkout's CPU per request over the baseline's, round by round next to each other: median ${median(pairedRatios).toFixed(3)}×, quartiles ${percentile(sortedRatios, 25).toFixed(3)}–${percentile(sortedRatios, 75).toFixed(3)}× over ${pairedRatios.length} pairs (${pairedRatios.map((ratio) => ratio.toFixed(3)).join(', ')}).`,
    '',
  ].join('\n');
}

process.exitCode = await main();
