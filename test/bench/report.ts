import { cpus, platform, release, totalmem } from 'node:os';
import type { Check } from './checks.js';
import type { BenchOptions } from './options.js';
import { mib, pairedRatio, rssGrowthBytes, type BenchResults } from './results.js';
import { addedMs } from './scenarios/cold.js';
import type { Summary } from './rounds.js';
import type { TargetResult } from './targets.js';

/** Above this share of a core the load generator, not the server, may be what limits requests per second. */
const CLIENT_BOUND_SHARE = 0.9;
/** Above this share of a core used by other processes during a round, the round counts as disturbed. */
const DISTURBED_SHARE = 0.05;

const integer = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => value.toFixed(2);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const percent = (share: number) => `${Math.round(share * 100)}%`;

function cpuCell(summary: Summary, probe = 'serverCpuUs'): string {
  const value = summary.perRequest[probe] ?? Number.NaN;
  return `${integer(value)} ±${percent(summary.perRequestSpread[probe] ?? 0)}`;
}

/** How busy the load generator and the rest of the machine were: what to trust the row for. */
function loadNotes(summary: Summary): string[] {
  const notes = [
    `load gen ${percent(summary.clientCpuShare)} of a core${summary.clientCpuShare >= CLIENT_BOUND_SHARE ? ' (client-bound)' : ''}`,
  ];
  if (summary.othersCpuShare >= DISTURBED_SHARE)
    notes.push(`other processes up to ${percent(summary.othersCpuShare)} of a core (disturbed)`);
  return notes;
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

export function machineFacts(cpuPlan: string): string[] {
  const model = cpus()[0]?.model ?? 'unknown CPU';
  return [
    // Not availableParallelism(): it counts only the cores this (pinned) process may use.
    `Machine: ${cpus().length} cores (${model}), ${mib(totalmem())} RAM, ${platform()} ${release()}, Node ${process.version}`,
    `Pinning: ${cpuPlan}`,
  ];
}

export function runFacts(options: BenchOptions): string {
  return (
    `Run: ${options.rounds} interleaved round(s) of ${options.roundMs} ms per contender after ${options.warmupMs} ms warm-up ` +
    `(cold: ${options.coldRounds} rounds, after ${options.coldWarmupRequests} searches with ${options.concurrency} in flight); ` +
    `${options.concurrency} requests in flight (hot, memory), ${options.coldConcurrency} (cold); upstream search latency ${options.upstreamLatencyMs} ms; ` +
    `gateway: NODE_ENV=production, an API key on every request, rate limit on but far above the load, LOG_LEVEL=${options.logLevel} written to /dev/null. ` +
    "Values are medians over rounds; ± is half the range of CPU µs/req over rounds; GC is the server's time in GC pauses per request and its longest pause in any round (perf_hooks); " +
    'ref: the stored bytes (hot), the bare proxy for CPU and the upstream for req/s (cold).'
  );
}

export function resultsTable({ hot, cold }: BenchResults): string[] {
  if (hot.length === 0 && cold === undefined) return [];
  const lines = [
    row([
      'Scenario',
      'Server',
      'req/s',
      'p50 ms',
      'p99 ms',
      'server CPU µs/req',
      'GC µs/req',
      'longest GC pause ms',
      'CPU vs ref',
      'req/s vs ref',
      'Notes',
    ]),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
  ];
  /** A server's row: `reference` is the row its ratios are of (hot: the stored bytes; cold: the bare proxy for CPU, the upstream for req/s). */
  const serverRow = (title: string, server: string, summary: Summary, cpuReference: Summary, rpsReference: Summary, notes: string[]) =>
    row([
      title,
      server,
      integer(summary.requestsPerSecond),
      ms(summary.p50Ms),
      ms(summary.p99Ms),
      cpuCell(summary),
      gcCell(summary),
      pauseCell(summary),
      `${(cpuOf(summary) / cpuOf(cpuReference)).toFixed(2)}×`,
      `${(summary.requestsPerSecond / rpsReference.requestsPerSecond).toFixed(2)}×`,
      [...notes, ...loadNotes(summary)].join('; '),
    ]);
  for (const result of hot) {
    const { spec, answer, storedBytes, gateway, peer, checkoutBaseline } = result;
    const hotRow = (title: string, server: string, summary: Summary, notes: string[] = []) =>
      serverRow(title, server, summary, storedBytes, storedBytes, notes);
    lines.push(
      hotRow(`${spec.title} (${kib(answer.length)})`, 'node:http, stored bytes (the physical limit)', storedBytes),
      hotRow('', 'gateway', gateway),
      ...(checkoutBaseline === undefined
        ? []
        : [
            hotRow('', `--baseline gateway (${checkoutBaseline.commit})`, checkoutBaseline.summary, [
              `the gateway's req/s over this one's: ${pairedMedian(checkoutBaseline.pairedRatios)}`,
            ]),
          ]),
      hotRow('', 'peer: Mercurius + graphql-jit, no cache', peer),
    );
  }
  if (cold === undefined) return lines;
  const coldRow = (server: string, summary: Summary, notes: string[]) => {
    const added = addedMs(cold, summary);
    return serverRow('', server, summary, cold.proxy, cold.upstream, [
      `added p50 ${ms(added.p50)} ms, p99 ${ms(added.p99)} ms`,
      ...notes,
      `lookup service CPU ${cpuCell(summary, 'upstreamCpuUs')} µs/req`,
    ]);
  };
  lines.push(
    row([
      `cold: a new search each time, ${cold.concurrency} in flight`,
      'upstream, direct',
      integer(cold.upstream.requestsPerSecond),
      ms(cold.upstream.p50Ms),
      ms(cold.upstream.p99Ms),
      cpuCell(cold.upstream),
      '',
      '',
      '',
      '',
      ["CPU is the lookup service's", ...loadNotes(cold.upstream)].join('; '),
    ]),
    coldRow('bare proxy (node:http, undici)', cold.proxy, ['the floor']),
    coldRow('peer: Mercurius + graphql-jit', cold.peer, []),
    coldRow('gateway', cold.gateway, []),
    ...(cold.checkoutBaseline === undefined
      ? []
      : [
          coldRow(`--baseline gateway (${cold.checkoutBaseline.commit})`, cold.checkoutBaseline.summary, [
            `the gateway's CPU per request over this one's: ${pairedMedian(cold.checkoutBaseline.pairedRatios)}`,
          ]),
        ]),
  );
  return lines;
}

const cpuOf = (summary: Summary) => summary.perRequest.serverCpuUs ?? Number.NaN;

function gcCell(summary: Summary): string {
  const value = summary.perRequest.serverGcUs;
  return value === undefined ? '' : integer(value);
}

function pauseCell(summary: Summary): string {
  const value = summary.peaks.longestGcPauseUs;
  return value === undefined ? '' : (value / 1000).toFixed(1);
}

function pairedMedian(ratios: number[]): string {
  const paired = pairedRatio(ratios);
  return paired === undefined ? 'no pairs' : `${paired.median.toFixed(3)}×, median of ${paired.pairs} paired rounds`;
}

/** The main gateway's RSS through the cold scenario, against the bound its caches keep. */
export function coldMemoryLines({ cold }: BenchResults): string[] {
  if (cold === undefined) return [];
  const { cacheMaxBytes, atStart, afterWarmup, afterCold } = cold.gatewayMemory;
  return [
    `- cold, the gateway's RSS (CACHE_MAX_BYTES ${mib(cacheMaxBytes)}): ${mib(atStart.rssBytes)} after start, ${mib(afterWarmup.rssBytes)} after the cold warm-up, ` +
      `${mib(afterCold.rssBytes)} after the cold rounds; its caches then held ${mib(afterCold.cacheBytes)}, its heap ${mib(afterCold.heapUsedBytes)}.`,
  ];
}

/** A warning when other processes took a noticeable share of the machine while rounds were measured. */
export function disturbance({ hot, cold }: BenchResults): string[] {
  const colds =
    cold === undefined
      ? []
      : [cold.upstream, cold.proxy, cold.peer, cold.gateway, ...(cold.checkoutBaseline ? [cold.checkoutBaseline.summary] : [])];
  const hots = hot.flatMap(({ storedBytes, gateway, peer, checkoutBaseline }) => [
    storedBytes,
    gateway,
    peer,
    ...(checkoutBaseline ? [checkoutBaseline.summary] : []),
  ]);
  const worst = Math.max(0, ...[...hots, ...colds].map((summary) => summary.othersCpuShare));
  if (worst < DISTURBED_SHARE) return [];
  return [
    `**Disturbed run:** other processes used up to ${percent(worst)} of a core during measured rounds. ` +
      'Requests per second and latencies are unreliable; CPU per request, read from the servers themselves, less so. Rerun on a quiet machine.',
    '',
  ];
}

export function otherScenarios({ singleFlight, memory }: BenchResults): string[] {
  const lines = memory.map(
    (result) =>
      `- memory: CACHE_MAX_BYTES ${mib(result.limitBytes)}; ${integer(result.searches)} ${result.title}, ${mib(result.responseBytes)} of answers; ` +
      `cache bytes at most ${mib(result.maxCacheBytes)}, ${mib(result.after.cacheBytes)} at the end; RSS after GC ${mib(result.before.rssBytes)} → ${mib(result.after.rssBytes)} (${rssGrowthBytes(result) >= 0 ? '+' : ''}${mib(rssGrowthBytes(result))}), peak ${mib(result.peakRssBytes)}; ` +
      `heap used after GC ${mib(result.before.heapUsedBytes)} → ${mib(result.after.heapUsedBytes)}.`,
  );
  if (singleFlight === undefined) return lines;
  return [
    `- single-flight: ${singleFlight.requests} identical cold requests at once, to a gateway with no token yet → ` +
      `${singleFlight.searches} upstream search call(s), ${singleFlight.tokens} token call(s); all answered in ${integer(singleFlight.elapsedMs)} ms.`,
    ...lines,
  ];
}

export function targetsTable(targets: TargetResult[]): string[] {
  return [
    row(['Target', 'Limit', 'Measured', 'Result']),
    row(['---', '---', '---:', '---']),
    ...targets.map(({ name, limit, measured, pass }) =>
      row([name, limit, measured, pass === undefined ? 'not judged' : pass ? 'pass' : '**FAIL**']),
    ),
  ];
}

export function checksList(checks: Check[]): string[] {
  return checks.map(({ name, ok, detail }) => `- [${ok ? 'x' : ' '}] ${ok ? '' : '**FAILED** '}${name}${detail ? ` — ${detail}` : ''}`);
}
