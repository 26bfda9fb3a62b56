import { cpuRatio, MIB, rssGrowthBytes, throughputRatio, type BenchResults } from './results.js';
import type { MemoryResult } from './scenarios/memory.js';

export interface TargetResult {
  name: string;
  limit: string;
  measured: string;
  /** Undefined for a figure shown next to the targets to read them by, not judged itself. */
  pass: boolean | undefined;
}

/** The targets of issue 5, as ratios and counts from this run; next to the cold ones, the floor they are measured against. */
export function judgeTargets(results: BenchResults): TargetResult[] {
  const { cold, singleFlight, memory } = results;
  const targets: TargetResult[] = results.hot.flatMap((hot) => [
    {
      name: `${hot.spec.title}: server CPU per request vs baseline`,
      limit: '≤ 2.00× (aim 1.30×)',
      measured: `${cpuRatio(hot).toFixed(2)}×`,
      pass: cpuRatio(hot) <= 2,
    },
    {
      name: `${hot.spec.title}: requests per second vs baseline`,
      limit: '≥ 0.60×',
      measured: `${throughputRatio(hot).toFixed(2)}×`,
      pass: throughputRatio(hot) >= 0.6,
    },
  ]);
  if (cold !== undefined) {
    targets.push(
      {
        name: 'cold: added latency p50 (gateway − upstream)',
        limit: '≤ 0.50 ms',
        measured: `${cold.addedP50Ms.toFixed(2)} ms`,
        pass: cold.addedP50Ms <= 0.5,
      },
      {
        name: 'cold: added latency p99 (gateway − upstream)',
        limit: '≤ 3.00 ms',
        measured: `${cold.addedP99Ms.toFixed(2)} ms`,
        pass: cold.addedP99Ms <= 3,
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
