import { coldCpuRatio, cpuRatio, MIB, rssGrowthBytes, throughputRatio, type BenchResults } from './results.js';
import type { MemoryResult } from './scenarios/memory.js';

export interface TargetResult {
  name: string;
  limit: string;
  measured: string;
  /** Undefined for a figure shown next to the targets to read them by, not judged itself. */
  pass: boolean | undefined;
}

/** Hot: CPU per request at most this many times the baseline's, requests per second at least this share of it (issue 17). */
export const HOT_CPU_RATIO_LIMIT = 1.3;
export const HOT_THROUGHPUT_RATIO_LIMIT = 0.8;
/** Cold, against the bare proxy of the same run (issue 17): added p50 and p99 in ms, CPU per request as a ratio. */
export const COLD_ADDED_P50_LIMIT_MS = 0.2;
export const COLD_ADDED_P99_LIMIT_MS = 1.5;
export const COLD_CPU_RATIO_LIMIT = 2;

/**
 * The targets of issue 17, as ratios and differences from this run. Cold is
 * judged against the bare proxy measured in the same run, not against the
 * upstream: the proxy is this machine's floor for a cold answer, and it moves
 * with the machine from run to run.
 */
export function judgeTargets(results: BenchResults): TargetResult[] {
  const { cold, singleFlight, memory } = results;
  const targets: TargetResult[] = results.hot.flatMap((hot) => [
    {
      name: `${hot.spec.title}: server CPU per request vs baseline`,
      limit: `≤ ${HOT_CPU_RATIO_LIMIT.toFixed(2)}×`,
      measured: `${cpuRatio(hot).toFixed(2)}×`,
      pass: cpuRatio(hot) <= HOT_CPU_RATIO_LIMIT,
    },
    {
      name: `${hot.spec.title}: requests per second vs baseline`,
      limit: `≥ ${HOT_THROUGHPUT_RATIO_LIMIT.toFixed(2)}×`,
      measured: `${throughputRatio(hot).toFixed(2)}×`,
      pass: throughputRatio(hot) >= HOT_THROUGHPUT_RATIO_LIMIT,
    },
  ]);
  if (cold !== undefined) {
    const overProxyP50 = cold.gateway.p50Ms - cold.proxy.p50Ms;
    const overProxyP99 = cold.gateway.p99Ms - cold.proxy.p99Ms;
    const cpu = coldCpuRatio(cold);
    targets.push(
      {
        name: 'cold: added latency p50 over the bare proxy (gateway p50 − bare proxy p50)',
        limit: `≤ ${COLD_ADDED_P50_LIMIT_MS.toFixed(2)} ms`,
        measured: `${overProxyP50.toFixed(2)} ms`,
        pass: overProxyP50 <= COLD_ADDED_P50_LIMIT_MS,
      },
      {
        name: 'cold: added latency p99 over the bare proxy (gateway p99 − bare proxy p99)',
        limit: `≤ ${COLD_ADDED_P99_LIMIT_MS.toFixed(2)} ms`,
        measured: `${overProxyP99.toFixed(2)} ms`,
        pass: overProxyP99 <= COLD_ADDED_P99_LIMIT_MS,
      },
      {
        name: 'cold: server CPU per request vs the bare proxy',
        limit: `≤ ${COLD_CPU_RATIO_LIMIT.toFixed(2)}×`,
        measured: `${cpu.toFixed(2)}×`,
        pass: cpu <= COLD_CPU_RATIO_LIMIT,
      },
      {
        name: 'cold: bare proxy added p50 / p99 (bare proxy − upstream: the floor on this machine)',
        limit: '—',
        measured: `${cold.proxyAddedP50Ms.toFixed(2)} / ${cold.proxyAddedP99Ms.toFixed(2)} ms`,
        pass: undefined,
      },
    );
  }
  if (singleFlight !== undefined) {
    targets.push(
      {
        name: 'single-flight: upstream search calls',
        limit: '= 1',
        measured: String(singleFlight.searches),
        pass: singleFlight.searches === 1,
      },
      { name: 'single-flight: upstream token calls', limit: '≤ 1', measured: String(singleFlight.tokens), pass: singleFlight.tokens <= 1 },
    );
  }
  return [...targets, ...memory.flatMap(memoryTargets)];
}

/** The cache stays within its limit, and the process within 1.3 times it plus 30 MiB of what it held before. */
function memoryTargets(memory: MemoryResult): TargetResult[] {
  const limitMib = memory.limitBytes / MIB;
  const rssLimit = 1.3 * memory.limitBytes + 30 * MIB;
  return [
    {
      name: `memory, ${memory.title}: cache bytes, highest seen`,
      limit: `≤ ${limitMib.toFixed(1)} MiB`,
      measured: `${(memory.maxCacheBytes / MIB).toFixed(2)} MiB`,
      pass: memory.maxCacheBytes <= memory.limitBytes,
    },
    {
      name: `memory, ${memory.title}: RSS growth after GC`,
      limit: `≤ 1.3 × ${limitMib.toFixed(1)} MiB + 30 MiB = ${(rssLimit / MIB).toFixed(1)} MiB`,
      measured: `${(rssGrowthBytes(memory) / MIB).toFixed(1)} MiB`,
      pass: rssGrowthBytes(memory) <= rssLimit,
    },
  ];
}
