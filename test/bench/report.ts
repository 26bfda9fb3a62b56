import { cpus, platform, release, totalmem } from 'node:os';
import type { Check } from './checks.js';
import type { BenchOptions } from './options.js';
import { coldCpuRatio, cpuRatio, MIB, pairedColdRatio, rssGrowthBytes, type BenchResults } from './results.js';
import type { Summary } from './rounds.js';
import type { TargetResult } from './targets.js';

/** Above this share of a core the load generator, not the server, may be what limits requests per second. */
const CLIENT_BOUND_SHARE = 0.9;
/** Above this share of a core used by other processes during a round, the round counts as disturbed. */
const DISTURBED_SHARE = 0.05;

const integer = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => value.toFixed(2);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
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
    'Values are medians over rounds; ± is half the range of CPU µs/req over rounds.'
  );
}

export function resultsTable({ hot, cold }: BenchResults): string[] {
  const lines = [
    row(['Scenario', 'Server', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'CPU vs base', 'req/s vs base', 'Notes']),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
  ];
  if (hot.length === 0 && cold === undefined) return [];
  for (const result of hot) {
    const { spec, answer } = result;
    const hotRow = (title: string, server: string, summary: Summary) =>
      row([
        title,
        server,
        integer(summary.requestsPerSecond),
        ms(summary.p50Ms),
        ms(summary.p99Ms),
        cpuCell(summary),
        `${cpuRatio(result, summary).toFixed(2)}×`,
        `${(summary.requestsPerSecond / result.production.requestsPerSecond).toFixed(2)}×`,
        loadNotes(summary).join('; '),
      ]);
    lines.push(
      hotRow(`${spec.title} (${kib(answer.length)})`, 'node:http, stored bytes (the physical limit)', result.storedBytes),
      hotRow('', 'production baseline: stored bytes, request id, access line, socket timeouts', result.production),
      hotRow('', 'gateway', result.gateway),
    );
  }
  if (cold === undefined) return lines;
  const coldTitle = `cold: a new search each time, ${cold.concurrency} in flight`;
  /** `cpuVsProxy` and `overProxy`: the gateway's figures against the bare proxy's, which its cold targets are judged by. */
  const inFrontOfUpstream = (
    server: string,
    summary: Summary,
    addedP50Ms: number,
    addedP99Ms: number,
    { addedLabel = 'added', cpuVsProxy = '', overProxy = [] as string[] } = {},
  ) =>
    row([
      '',
      server,
      integer(summary.requestsPerSecond),
      ms(summary.p50Ms),
      ms(summary.p99Ms),
      cpuCell(summary),
      cpuVsProxy,
      `${(summary.requestsPerSecond / cold.upstream.requestsPerSecond).toFixed(2)}×`,
      [
        `${addedLabel} p50 ${ms(addedP50Ms)} ms, p99 ${ms(addedP99Ms)} ms`,
        ...overProxy,
        `lookup service CPU ${cpuCell(summary, 'upstreamCpuUs')} µs/req`,
        ...loadNotes(summary),
      ].join('; '),
    ]);
  lines.push(
    row([
      coldTitle,
      'upstream, direct',
      integer(cold.upstream.requestsPerSecond),
      ms(cold.upstream.p50Ms),
      ms(cold.upstream.p99Ms),
      cpuCell(cold.upstream),
      '',
      '',
      ["CPU is the lookup service's", ...loadNotes(cold.upstream)].join('; '),
    ]),
    inFrontOfUpstream('bare proxy (node:http, undici)', cold.proxy, cold.proxyAddedP50Ms, cold.proxyAddedP99Ms, {
      addedLabel: 'the floor: added',
      cpuVsProxy: '1.00×',
    }),
    inFrontOfUpstream('gateway', cold.gateway, cold.addedP50Ms, cold.addedP99Ms, {
      cpuVsProxy: `${coldCpuRatio(cold).toFixed(2)}× proxy`,
      overProxy: [
        `over the bare proxy p50 ${ms(cold.gateway.p50Ms - cold.proxy.p50Ms)} ms, p99 ${ms(cold.gateway.p99Ms - cold.proxy.p99Ms)} ms`,
      ],
    }),
  );
  const paired = pairedColdRatio(cold);
  if (cold.checkoutBaseline !== undefined && paired !== undefined) {
    const { summary, commit } = cold.checkoutBaseline;
    lines.push(
      inFrontOfUpstream(
        `--baseline gateway (${commit})`,
        summary,
        summary.p50Ms - cold.upstream.p50Ms,
        summary.p99Ms - cold.upstream.p99Ms,
        {
          cpuVsProxy: `${((summary.perRequest.serverCpuUs ?? Number.NaN) / (cold.proxy.perRequest.serverCpuUs ?? Number.NaN)).toFixed(2)}× proxy`,
          overProxy: [
            `the gateway's CPU per request over this one's: ${paired.median.toFixed(3)}×, median of ${paired.pairs} paired rounds`,
          ],
        },
      ),
    );
  }
  return lines;
}

/** A warning when other processes took a noticeable share of the machine while rounds were measured. */
export function disturbance({ hot, cold }: BenchResults): string[] {
  const colds =
    cold === undefined ? [] : [cold.upstream, cold.proxy, cold.gateway, ...(cold.checkoutBaseline ? [cold.checkoutBaseline.summary] : [])];
  const worst = Math.max(
    0,
    ...[...hot.flatMap(({ storedBytes, production, gateway }) => [storedBytes, production, gateway]), ...colds].map(
      (summary) => summary.othersCpuShare,
    ),
  );
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
