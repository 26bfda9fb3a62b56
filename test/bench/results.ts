import type { ColdResult } from './scenarios/cold.js';
import type { HotResult } from './scenarios/hot.js';
import type { MemoryResult } from './scenarios/memory.js';
import type { SingleFlightResult } from './scenarios/single-flight.js';

/** Everything one run measured; with --memory-only, no hot, cold or single-flight figures. */
export interface BenchResults {
  hot: HotResult[];
  cold: ColdResult | undefined;
  singleFlight: SingleFlightResult | undefined;
  /** One per memory case. */
  memory: MemoryResult[];
}

export const MIB = 1024 * 1024;

/** Server CPU per request of the gateway over the baseline's. */
export function cpuRatio({ gateway, baseline }: HotResult): number {
  return (gateway.perRequest.serverCpuUs ?? Number.NaN) / (baseline.perRequest.serverCpuUs ?? Number.NaN);
}

/** Server CPU per cold request of the gateway over the bare proxy's, both measured in the same rounds. */
export function coldCpuRatio({ gateway, proxy }: ColdResult): number {
  return (gateway.perRequest.serverCpuUs ?? Number.NaN) / (proxy.perRequest.serverCpuUs ?? Number.NaN);
}

export function throughputRatio({ gateway, baseline }: HotResult): number {
  return gateway.requestsPerSecond / baseline.requestsPerSecond;
}

export function rssGrowthBytes({ before, after }: MemoryResult): number {
  return after.rssBytes - before.rssBytes;
}
