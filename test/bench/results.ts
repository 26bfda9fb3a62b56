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

export const mib = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MiB`;

/** Median and quartiles of ratios of paired rounds. */
export function pairedRatio(ratios: number[] | undefined): { median: number; quartiles: [number, number]; pairs: number } | undefined {
  if (ratios === undefined || ratios.length === 0) return undefined;
  const sorted = Float64Array.from(ratios).sort();
  return { median: median(ratios), quartiles: [percentile(sorted, 25), percentile(sorted, 75)], pairs: ratios.length };
}

export function rssGrowthBytes({ before, after }: MemoryResult): number {
  return after.rssBytes - before.rssBytes;
}
