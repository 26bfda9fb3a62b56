import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkoutOption, wholeNumberOption } from './command-line.js';

export interface CompareOptions {
  /** A checkout of the gateway, its dependencies installed, that this one is measured against. */
  baseline: string;
  rounds: number;
  roundMs: number;
  /** Distinct searches sent to each gateway, 16 in flight, before the rounds. */
  warmupRequests: number;
  upstreamLatencyMs: number;
  /** Where each gateway writes a V8 CPU profile (--cpu-prof), in a folder named after it, if anywhere. */
  cpuProfDir: string | undefined;
  /** Where each gateway writes its --trace-gc log (its stdout, log lines included), in a file named after it, if anywhere. */
  traceGcDir: string | undefined;
}

export const COMPARE_USAGE = `Usage: npm run bench:compare -- --baseline DIR [options]
  --baseline DIR             another checkout of the gateway, with npm ci run there
  --rounds N                 measured rounds per gateway (default 20)
  --round-ms MS              length of a round, at least 1000 (default 3000)
  --warmup N                 cold searches per gateway before its rounds (default 5000)
  --upstream-latency-ms MS   lookup service search latency, at least 1 (default 5)
  --cpu-prof DIR             write a V8 CPU profile of each gateway to DIR/this-checkout and
                             DIR/baseline, to tell where their CPU per request differs
  --trace-gc DIR             run each gateway with --trace-gc, its stdout (log lines too) in
                             DIR/this-checkout.log and DIR/baseline.log, and summarize the
                             collections of the whole run, warm-up included`;

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
      'cpu-prof': { type: 'string' },
      'trace-gc': { type: 'string' },
    },
  });
  const integer = (name: 'rounds' | 'round-ms' | 'warmup' | 'upstream-latency-ms', fallback: number, min: number, max: number) =>
    wholeNumberOption(name, values[name], fallback, min, max);
  if (values.baseline === undefined) throw new Error('--baseline is required: the checkout to compare this one with');
  return {
    baseline: checkoutOption('baseline', values.baseline),
    rounds: integer('rounds', 20, 1, 100),
    // A round of a second holds about 150 cold searches; shorter ones compare too few.
    roundMs: integer('round-ms', 3_000, 1_000, 600_000),
    warmupRequests: integer('warmup', 5_000, 0, 50_000),
    // At least 1 ms: the searches a run needs are counted from the fastest the upstream lets a request be answered.
    upstreamLatencyMs: integer('upstream-latency-ms', 5, 1, 10_000),
    cpuProfDir: values['cpu-prof'] === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), values['cpu-prof']),
    traceGcDir: values['trace-gc'] === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), values['trace-gc']),
  };
}
