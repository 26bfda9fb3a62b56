import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface CompareOptions {
  /** A checkout of the gateway whose build (`dist/main.js`) this one is measured against. */
  baseline: string;
  rounds: number;
  roundMs: number;
  /** Distinct searches sent to each gateway, 16 in flight, before the rounds. */
  warmupRequests: number;
  upstreamLatencyMs: number;
}

export const COMPARE_USAGE = `Usage: npm run bench:compare -- --baseline DIR [options]
  --baseline DIR             another checkout of the gateway, built (npm ci && npm run build there)
  --rounds N                 measured rounds per gateway (default 10)
  --round-ms MS              length of a round (default 3000)
  --warmup N                 cold searches per gateway before its rounds (default 5000)
  --upstream-latency-ms MS   lookup service search latency (default 5)`;

/** Reads the command line; throws a message naming the bad option. */
export function readCompareOptions(args: string[]): CompareOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      baseline: { type: 'string' },
      rounds: { type: 'string' },
      'round-ms': { type: 'string' },
      warmup: { type: 'string' },
      'upstream-latency-ms': { type: 'string' },
    },
  });
  const integer = (name: 'rounds' | 'round-ms' | 'warmup' | 'upstream-latency-ms', fallback: number, min: number, max: number): number => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max)
      throw new Error(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    return value;
  };
  if (values.baseline === undefined) throw new Error('--baseline is required: the checkout to compare this one with');
  const baseline = resolve(values.baseline);
  if (!existsSync(join(baseline, 'dist', 'main.js'))) {
    throw new Error(`--baseline ${baseline} has no dist/main.js: run npm ci && npm run build there first`);
  }
  return {
    baseline,
    rounds: integer('rounds', 10, 1, 100),
    roundMs: integer('round-ms', 3_000, 100, 600_000),
    warmupRequests: integer('warmup', 5_000, 0, 50_000),
    upstreamLatencyMs: integer('upstream-latency-ms', 5, 0, 10_000),
  };
}
