import { cpuRatio, MIB, pairedColdRatio, rssGrowthBytes, type BenchResults } from './results.js';
import type { MemoryResult } from './scenarios/memory.js';

export interface TargetResult {
  name: string;
  limit: string;
  measured: string;
  /** Undefined for a figure shown next to the targets to read them by, not judged itself. */
  pass: boolean | undefined;
}

/**
 * Hot: the gateway's CPU per request at most this many times that of the
 * production baseline (children/baseline-server.ts: the stored bytes written
 * with the request id, the access line and the socket timeouts every
 * production gateway here has), measured in the same rounds (issue 26).
 */
export const HOT_CPU_RATIO_LIMIT = 1.25;
/**
 * Cold: the gateway's CPU per cold request at most this many times that of
 * the --baseline checkout's gateway (the main before issue 26), the median of
 * the ratios of rounds run next to each other (issue 26).
 */
export const COLD_CPU_RATIO_LIMIT = 1.1;

/** The targets, judged within one run. */
export function judgeTargets(results: BenchResults): TargetResult[] {
  const { cold, singleFlight, memory } = results;
  const targets: TargetResult[] = results.hot.map((hot) => ({
    name: `${hot.spec.title}: server CPU per request vs the production baseline`,
    limit: `≤ ${HOT_CPU_RATIO_LIMIT.toFixed(2)}×`,
    measured: `${cpuRatio(hot, hot.gateway).toFixed(2)}×`,
    pass: cpuRatio(hot, hot.gateway) <= HOT_CPU_RATIO_LIMIT,
  }));
  if (cold !== undefined) {
    const paired = pairedColdRatio(cold);
    targets.push({
      name: `cold: server CPU per request vs the --baseline checkout's gateway${cold.checkoutBaseline ? ` (${cold.checkoutBaseline.commit})` : ''}, median of paired rounds`,
      limit: `≤ ${COLD_CPU_RATIO_LIMIT.toFixed(2)}×`,
      measured:
        paired === undefined
          ? 'not measured: no --baseline'
          : `${paired.median.toFixed(3)}× (quartiles ${paired.quartiles.map((ratio) => ratio.toFixed(3)).join('–')}×, ${paired.pairs} pairs)`,
      pass: paired === undefined ? undefined : paired.median <= COLD_CPU_RATIO_LIMIT,
    });
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
