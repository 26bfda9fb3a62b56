import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayStats } from '../harness/protocol.js';
import { startLookupService, type LookupService } from '../../src/lookup-service/index.js';
import { FAULT_CYCLE, FINAL_PHASE, makeHealthy, runPhase, type Phase } from './fault-schedule.js';
import { checkHealthyAnswers } from './final-check.js';
import { GatewayProcess } from './gateway-process.js';
import { Load } from './load.js';
import { readOptions, USAGE, type SoakOptions } from './options.js';
import { failures, finalReport, progressLine, type PhaseSummary } from './report.js';
import { SOAK_GATEWAY_SETTINGS, WARM_UP_SECONDS } from './settings.js';
import { Tally } from './tally.js';
import { addCalls, UpstreamMeter } from './upstream-meter.js';
import { Workload } from './workload.js';

/**
 * `npm run soak`: minutes of mixed concurrent queries against a gateway in a
 * child process while the embedded lookup service fails in every way the
 * schedule knows; then a healthy upstream, a check that the gateway answers
 * normally, and a report. Exits 1 on a crash, a 5xx or malformed answer, a
 * failed final check or unbounded heap growth.
 */

const PROGRESS_EVERY_MS = 10_000;
const ROTATE_EVERY_MS = 10_000;

const log = (line: string) => process.stdout.write(`${line}\n`);

async function soak(options: SoakOptions, lookup: LookupService, gateway: GatewayProcess): Promise<boolean> {
  const workload = new Workload();
  const load = new Load(workload, () => gateway.graphqlUrl, options.concurrency);
  const meter = new UpstreamMeter(lookup.counters);
  const phases = new Map<string, PhaseSummary>();
  const loadStartedAt = performance.now();
  let phaseName = 'warm-up';

  log(`Warming up for ${WARM_UP_SECONDS} s`);
  load.startPhase(new Tally());
  load.start();
  await sleep(WARM_UP_SECONDS * 1_000);
  meter.take();
  const start = await gateway.stats(true);
  log(
    `Gateway after warm-up: rss ${(start.rssBytes / 2 ** 20).toFixed(1)} MiB, heap used ${(start.heapUsedBytes / 2 ** 20).toFixed(1)} MiB`,
  );

  let lastProgress = { at: performance.now(), requests: load.total.requests };
  let latest: GatewayStats | undefined = start;
  const progress = setInterval(() => {
    const now = performance.now();
    const requestsPerSecond = ((load.total.requests - lastProgress.requests) * 1_000) / (now - lastProgress.at);
    lastProgress = { at: now, requests: load.total.requests };
    gateway
      .stats(false)
      .then(
        (stats) => (latest = stats),
        () => (latest = undefined),
      )
      .finally(() => {
        log(
          progressLine({
            elapsedSeconds: (now - loadStartedAt) / 1_000,
            phase: phaseName,
            requestsPerSecond,
            total: load.total,
            upstream: meter.peek(),
            stats: latest,
            crashes: gateway.crashes.length,
          }),
        );
      });
  }, PROGRESS_EVERY_MS);
  const rotation = setInterval(() => workload.rotate(), ROTATE_EVERY_MS);

  const run = async (phase: Phase) => {
    phaseName = phase.name;
    const summary = phases.get(phase.name) ?? {
      name: phase.name,
      runs: 0,
      seconds: 0,
      tally: new Tally(),
      upstream: { searches: 0, tokens: 0, maxSearchesInFlight: 0 },
    };
    phases.set(phase.name, summary);
    load.startPhase(summary.tally);
    const startedAt = performance.now();
    await runPhase(lookup.knobs, phase, options.phaseSeconds * 1_000);
    summary.runs += 1;
    summary.seconds += (performance.now() - startedAt) / 1_000;
    addCalls(summary.upstream, meter.take());
  };
  const faultsStartedAt = performance.now();
  for (let index = 0; performance.now() - faultsStartedAt < options.durationSeconds * 1_000; index++) {
    const phase = FAULT_CYCLE[index % FAULT_CYCLE.length];
    if (phase) await run(phase);
  }
  await run(FINAL_PHASE);
  clearInterval(rotation);
  clearInterval(progress);
  await load.stop();
  const loadSeconds = (performance.now() - loadStartedAt) / 1_000;
  await load.close();
  makeHealthy(lookup.knobs);

  const finalProblems = await checkHealthyAnswers(gateway.graphqlUrl);
  const end = await gateway.stats(true);
  const result = {
    options,
    loadSeconds,
    total: load.total,
    phases: [...phases.values()],
    upstream: meter.total,
    start,
    end,
    crashes: gateway.crashes,
    finalProblems,
  };
  for (const line of finalReport(result)) log(line);
  return failures(result).length === 0;
}

async function main(): Promise<number> {
  let options: ReturnType<typeof readOptions>;
  try {
    options = readOptions(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if ('help' in options) {
    process.stdout.write(USAGE);
    return 0;
  }
  log(
    `Soak run: ${options.durationSeconds} s of faults in ${options.phaseSeconds} s phases, ${options.concurrency} concurrent clients; gateway settings ${JSON.stringify(SOAK_GATEWAY_SETTINGS)}`,
  );
  const lookup = await startLookupService();
  let gateway: GatewayProcess | undefined;
  try {
    gateway = await GatewayProcess.start({ upstream: { url: lookup.url, ...lookup.credentials }, settings: SOAK_GATEWAY_SETTINGS });
    log(`Gateway (child process) at ${gateway.graphqlUrl}, lookup service at ${lookup.url}`);
    return (await soak(options, lookup, gateway)) ? 0 : 1;
  } finally {
    await gateway?.stop();
    await lookup.close();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // The exit handler in test/harness/child-process.ts kills the child.
  process.once(signal, () => process.exit(130));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`Soak run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
