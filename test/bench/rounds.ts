import { forCount, forDuration, type LoadClient, type LoadPlan, type LoadRun } from './load.js';
import type { MachineLoad } from './machine-load.js';
import { median, percentile, spread } from './stats.js';

/** One side of a comparison: a load client aimed at a server, and the counters read around each round. */
export interface Contender {
  name: string;
  client: LoadClient;
  /** A plan for one run; `more` is set by the round. */
  plan(): Omit<LoadPlan, 'more'>;
  /** Cumulative counters (e.g. the server's CPU µs); each round records their growth. */
  probes: Record<string, () => Promise<number>>;
  /** Highest values since the last reading (e.g. the server's longest GC pause): read before each round, then after it. */
  peaks?: Record<string, () => Promise<number>>;
  /** A warm-up of so many requests through its own client, in place of `warmupMs` through `client`. */
  warmup?: { client: LoadClient; requests: number };
}

export interface RoundTiming {
  rounds: number;
  roundMs: number;
  warmupMs: number;
  /** Run once every contender is warmed up, before the first round. */
  afterWarmup?: () => Promise<void>;
}

export interface Round {
  run: LoadRun;
  /** Growth of each probe over the round. */
  growth: Record<string, number>;
  /** Each peak's value over the round. */
  peaks: Record<string, number>;
  /** CPU µs that processes outside the benchmark used during the round. */
  othersUs: number;
}

export interface ContenderRuns {
  warmupFailures: number;
  warmupFailureSamples: string[];
  rounds: Round[];
}

/** Medians over the rounds of one contender. */
export interface Summary {
  rounds: number;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Growth of each probe per request. */
  perRequest: Record<string, number>;
  /** How far the rounds disagree on each per-request value (half range / median). */
  perRequestSpread: Record<string, number>;
  /** Each peak's highest value over all rounds. */
  peaks: Record<string, number>;
  /** Share of one core the load generator used: near 1, the client and not the server set the pace. */
  clientCpuShare: number;
  /** Highest share of one core that other processes on the machine used during a round. */
  othersCpuShare: number;
  /** Failed requests, warm-up included. */
  failures: number;
  failureSamples: string[];
}

/**
 * Warm-ups are run in this many slices, the contenders taking turns: one
 * left idle through another's whole warm-up (a minute of cold searches)
 * used up to twice the CPU per request of the other in the first rounds
 * after it, whichever gateway it was.
 */
const WARMUP_SLICES = 10;

/**
 * Warms every contender up, in turns, then runs `rounds` rounds each,
 * alternating the order (A B, B A, ...) so that drift in the machine hits
 * all alike.
 */
export async function runInterleaved(
  contenders: Contender[],
  timing: RoundTiming,
  machine: MachineLoad,
): Promise<Map<string, ContenderRuns>> {
  const runs = new Map<string, ContenderRuns>(
    contenders.map(({ name }) => [name, { warmupFailures: 0, warmupFailureSamples: [], rounds: [] }]),
  );
  for (let slice = 0; slice < WARMUP_SLICES; slice++) {
    for (const contender of contenders) {
      const { client, more } = contender.warmup
        ? { client: contender.warmup.client, more: forCount(Math.ceil(contender.warmup.requests / WARMUP_SLICES)) }
        : { client: contender.client, more: forDuration(timing.warmupMs / WARMUP_SLICES) };
      const warmup = await client.run({ ...contender.plan(), more });
      const run = runs.get(contender.name)!;
      run.warmupFailures += warmup.failures;
      run.warmupFailureSamples.push(...warmup.failureSamples);
    }
  }
  await timing.afterWarmup?.();
  for (let round = 0; round < timing.rounds; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) runs.get(contender.name)?.rounds.push(await runRound(contender, timing.roundMs, machine));
  }
  return runs;
}

async function runRound(contender: Contender, roundMs: number, machine: MachineLoad): Promise<Round> {
  const peaks = contender.peaks ?? {};
  const [before] = await Promise.all([readAll(contender.probes), readAll(peaks)]);
  const othersBefore = machine.othersUs();
  const run = await contender.client.run({ ...contender.plan(), more: forDuration(roundMs) });
  const othersUs = machine.othersUs() - othersBefore;
  const [after, peaksAfter] = await Promise.all([readAll(contender.probes), readAll(peaks)]);
  return {
    run,
    othersUs,
    growth: Object.fromEntries(Object.entries(after).map(([name, value]) => [name, value - (before[name] ?? 0)])),
    peaks: peaksAfter,
  };
}

async function readAll(readers: Record<string, () => Promise<number>>): Promise<Record<string, number>> {
  const entries = await Promise.all(Object.entries(readers).map(async ([name, read]) => [name, await read()] as const));
  return Object.fromEntries(entries);
}

export function summarize({ warmupFailures, warmupFailureSamples, rounds }: ContenderRuns): Summary {
  const runs = rounds.map(({ run }) => run);
  const perRequest = (name: string) => rounds.map(({ run, growth }) => (growth[name] ?? Number.NaN) / run.requests);
  const probeNames = Object.keys(rounds[0]?.growth ?? {});
  const peakNames = Object.keys(rounds[0]?.peaks ?? {});
  return {
    rounds: rounds.length,
    requests: rounds.reduce((sum, { run }) => sum + run.requests, 0),
    requestsPerSecond: median(rounds.map(requestsPerSecond)),
    p50Ms: median(rounds.map(({ run }) => percentile(run.latenciesMs, 50))),
    p99Ms: median(rounds.map(({ run }) => percentile(run.latenciesMs, 99))),
    perRequest: Object.fromEntries(probeNames.map((name) => [name, median(perRequest(name))])),
    perRequestSpread: Object.fromEntries(probeNames.map((name) => [name, spread(perRequest(name))])),
    peaks: Object.fromEntries(peakNames.map((name) => [name, Math.max(...rounds.map(({ peaks }) => peaks[name] ?? Number.NaN))])),
    clientCpuShare: median(rounds.map(({ run }) => run.clientCpuUs / 1000 / run.elapsedMs)),
    othersCpuShare: Math.max(0, ...rounds.map(({ run, othersUs }) => othersUs / 1000 / run.elapsedMs)),
    failures: runs.reduce((sum, run) => sum + run.failures, warmupFailures),
    failureSamples: [...warmupFailureSamples, ...runs.flatMap((run) => run.failureSamples)].slice(0, 3),
  };
}

/**
 * `name`'s value over `baseline`'s, one per round: each pair of rounds ran
 * next to each other, and the machine drifts between rounds far more than
 * within a pair.
 */
export function ratiosOfPairs(
  runs: Map<string, ContenderRuns>,
  name: string,
  baseline: string,
  figure: (round: Round) => number,
): number[] {
  const values = (contender: string) => (runs.get(contender)?.rounds ?? []).map(figure);
  const baselines = values(baseline);
  return values(name).map((value, round) => value / (baselines[round] ?? Number.NaN));
}

/** A round's server CPU per request. */
export const cpuPerRequest = ({ run, growth }: Round): number => (growth.serverCpuUs ?? Number.NaN) / run.requests;

/** A round's requests per second. */
export const requestsPerSecond = ({ run }: Round): number => (run.requests / run.elapsedMs) * 1000;
