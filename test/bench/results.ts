import type { ColdResult } from './scenarios/cold.js';
import type { HotResult } from './scenarios/hot.js';
import type { MemoryResult } from './scenarios/memory.js';
import type { SingleFlightResult } from './scenarios/single-flight.js';
import { median, percentile } from './stats.js';

/** Everything one run measured; with --memory-only, no hot, cold or single-flight figures. */
export interface BenchResults {
  hot: HotResult[];
  cold: ColdResult | undefined;
  singleFlight: SingleFlightResult | undefined;
  /** One per memory case. */
  memory: MemoryResult[];
}

export const MIB = 1024 * 1024;

/** Server CPU per request of `summary` over the production baseline's: the hot target's ratio. */
export function cpuRatio({ production }: HotResult, summary: HotResult['gateway']): number {
  return (summary.perRequest.serverCpuUs ?? Number.NaN) / (production.perRequest.serverCpuUs ?? Number.NaN);
}

/** Server CPU per cold request of the gateway over the bare proxy's, both measured in the same rounds. */
export function coldCpuRatio({ gateway, proxy }: ColdResult): number {
  return (gateway.perRequest.serverCpuUs ?? Number.NaN) / (proxy.perRequest.serverCpuUs ?? Number.NaN);
}

/** The gateway's CPU per cold request over the --baseline checkout's gateway's, round by round: median and quartiles. */
export function pairedColdRatio(cold: ColdResult): { median: number; quartiles: [number, number]; pairs: number } | undefined {
  const ratios = cold.checkoutBaseline?.pairedRatios;
  if (ratios === undefined || ratios.length === 0) return undefined;
  const sorted = Float64Array.from(ratios).sort();
  return { median: median(ratios), quartiles: [percentile(sorted, 25), percentile(sorted, 75)], pairs: ratios.length };
}

export function rssGrowthBytes({ before, after }: MemoryResult): number {
  return after.rssBytes - before.rssBytes;
}
