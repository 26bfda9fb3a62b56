import { MIB, mib, pairedRatio, rssGrowthBytes, type BenchResults } from './results.js';
import type { Summary } from './rounds.js';
import { addedMs, type ColdResult } from './scenarios/cold.js';
import type { MemoryResult } from './scenarios/memory.js';

export interface TargetResult {
  name: string;
  limit: string;
  measured: string;
  /** Undefined for a figure shown next to the targets to read them by, not judged itself. */
  pass: boolean | undefined;
}

/**
 * Hot: the gateway's requests per second at least this share of the
 * --baseline checkout's gateway's (the main the change started from), the
 * median of the ratios of rounds run next to each other (issue 38). The work
 * in front of the response cache is required work; the stored-bytes server
 * and the peer stay in the table to read the figure by.
 */
export const HOT_RPS_RATIO_LIMIT = 0.95;
/** Cold: the gateway's CPU per request at most this many times the --baseline checkout's gateway's, median of paired rounds (issue 38). */
export const COLD_CPU_RATIO_LIMIT = 1.05;
/** Cold: latency the gateway adds over the upstream called directly, at p99, at most this (and at most the peer's). */
export const COLD_ADDED_P99_LIMIT_MS = 3;
/** Cold: the gateway's longest GC pause in any measured round at most this. */
export const COLD_GC_PAUSE_LIMIT_MS = 3;
/** Cold: the gateway's RSS after the cold rounds at most its RSS after start, plus CACHE_MAX_BYTES, plus this. */
export const COLD_RSS_HEADROOM_BYTES = 30 * MIB;

const paired = (ratios: number[] | undefined) => {
  const found = pairedRatio(ratios);
  return found === undefined
    ? 'not measured: no --baseline'
    : `${found.median.toFixed(3)}× (quartiles ${found.quartiles.map((ratio) => ratio.toFixed(3)).join('–')}×, ${found.pairs} pairs)`;
};

/** The targets, judged within one run. */
export function judgeTargets(results: BenchResults): TargetResult[] {
  const { cold, singleFlight, memory } = results;
  const targets: TargetResult[] = results.hot.flatMap((hot) => {
    const ratio = pairedRatio(hot.checkoutBaseline?.pairedRatios);
    const rps = (summary: Summary) => summary.requestsPerSecond;
    return [
      {
        name: `${hot.spec.title}: requests per second vs the --baseline checkout's gateway${hot.checkoutBaseline ? ` (${hot.checkoutBaseline.commit})` : ''}, median of paired rounds`,
        limit: `≥ ${HOT_RPS_RATIO_LIMIT.toFixed(2)}×`,
        measured: paired(hot.checkoutBaseline?.pairedRatios),
        pass: ratio === undefined ? undefined : ratio.median >= HOT_RPS_RATIO_LIMIT,
      },
      {
        name: `${hot.spec.title}: requests per second vs the stored bytes and vs the peer`,
        limit: 'read by',
        measured: `${(rps(hot.gateway) / rps(hot.storedBytes)).toFixed(2)}× / ${(rps(hot.gateway) / rps(hot.peer)).toFixed(2)}×`,
        pass: undefined,
      },
    ];
  });
  if (cold !== undefined) targets.push(...coldTargets(cold));
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

function coldTargets(cold: ColdResult): TargetResult[] {
  const added = addedMs(cold, cold.gateway).p99;
  const peerAdded = addedMs(cold, cold.peer).p99;
  const ratio = pairedRatio(cold.checkoutBaseline?.pairedRatios);
  const pauseMs = (cold.gateway.peaks.longestGcPauseUs ?? Number.NaN) / 1000;
  const { cacheMaxBytes, atStart, afterCold } = cold.gatewayMemory;
  const rssLimit = atStart.rssBytes + cacheMaxBytes + COLD_RSS_HEADROOM_BYTES;
  return [
    {
      name: 'cold: latency added over the upstream, p99',
      limit: `≤ ${COLD_ADDED_P99_LIMIT_MS} ms and ≤ the peer's (${peerAdded.toFixed(2)} ms)`,
      measured: `${added.toFixed(2)} ms`,
      pass: added <= COLD_ADDED_P99_LIMIT_MS && added <= peerAdded,
    },
    {
      name: "cold: the gateway's longest GC pause in a measured round",
      limit: `≤ ${COLD_GC_PAUSE_LIMIT_MS} ms`,
      measured: `${pauseMs.toFixed(1)} ms`,
      pass: pauseMs <= COLD_GC_PAUSE_LIMIT_MS,
    },
    {
      name: "cold: the gateway's RSS after the cold scenario",
      limit: `≤ ${mib(atStart.rssBytes)} at start + ${mib(cacheMaxBytes)} CACHE_MAX_BYTES + ${mib(COLD_RSS_HEADROOM_BYTES)} = ${mib(rssLimit)}`,
      measured: mib(afterCold.rssBytes),
      pass: afterCold.rssBytes <= rssLimit,
    },
    {
      name: `cold: server CPU per request vs the --baseline checkout's gateway${cold.checkoutBaseline ? ` (${cold.checkoutBaseline.commit})` : ''}, median of paired rounds`,
      limit: `≤ ${COLD_CPU_RATIO_LIMIT.toFixed(2)}×`,
      measured: paired(cold.checkoutBaseline?.pairedRatios),
      pass: ratio === undefined ? undefined : ratio.median <= COLD_CPU_RATIO_LIMIT,
    },
  ];
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
