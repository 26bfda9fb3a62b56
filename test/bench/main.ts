import { readCommandLine } from './command-line.js';
import { readOptions, USAGE, type BenchOptions } from './options.js';
import { planCpus } from './pinning.js';
import { startContext, type BenchContext, type Server } from './context.js';
import { checksList, coldMemoryLines, disturbance, machineFacts, otherScenarios, resultsTable, runFacts, targetsTable } from './report.js';
import type { BenchResults } from './results.js';
import { runCold } from './scenarios/cold.js';
import { runHot } from './scenarios/hot.js';
import { HOT_DASHBOARD, HOT_FULL_SEARCH } from './scenarios/hot-queries.js';
import { FULL_PAGES, runMemory, SMALL_WINDOWS } from './scenarios/memory.js';
import { compareWithSecondGateway } from './scenarios/second-gateway.js';
import { searchIndexLines } from './scenarios/search-index.js';
import { runSingleFlight } from './scenarios/single-flight.js';
import { judgeTargets } from './targets.js';

/**
 * `npm run bench`: the gateway against a bare node:http server writing the
 * same bytes, against the upstream it fronts, against a bare proxy to that
 * upstream, against a peer (Mercurius with graphql-jit) and, with --baseline,
 * against another checkout's gateway. Markdown on stdout, progress on stderr. Exits 1 when a
 * correctness check fails (or, with --enforce-targets, a target is missed), 2
 * on a bad command line.
 */
async function main(): Promise<number> {
  const options = readCommandLine(readOptions, USAGE);
  if (options === undefined) return 2;
  const cpus = planCpus();
  progress(`cores: ${cpus.description}`);
  const context = await startContext(options, cpus);
  let results: BenchResults;
  try {
    results = await runScenarios(context);
  } finally {
    await context.stop();
  }

  const lines = [
    `## Benchmark${options.smoke ? ' (smoke run: correctness only, timings are not meaningful)' : ''}`,
    '',
    ...machineFacts(cpus.description),
    runFacts(options),
    '',
    ...resultsTable(results),
    '',
    ...disturbance(results),
    ...coldMemoryLines(results),
    ...otherScenarios(results),
    ...searchIndexLines(options.smoke),
  ];
  const targets = judgeTargets(results);
  if (!options.smoke) lines.push('', '### Targets', '', ...targetsTable(targets));
  lines.push('', '### Correctness checks', '', ...checksList(context.checks.list), '');
  process.stdout.write(lines.join('\n'));

  const failed = context.checks.failed;
  const missed = options.enforceTargets && !options.smoke ? targets.filter(({ pass }) => pass === false) : [];
  if (failed.length > 0) process.stderr.write(`${failed.length} correctness check(s) failed\n`);
  if (missed.length > 0) process.stderr.write(`${missed.length} target(s) missed\n`);
  return failed.length > 0 || missed.length > 0 ? 1 : 0;
}

async function runScenarios(context: BenchContext): Promise<BenchResults> {
  const { options } = context;
  if (options.memoryOnly) return { hot: [], cold: undefined, singleFlight: undefined, memory: await runMemoryCases(context) };
  const hot = [];
  for (const spec of [HOT_FULL_SEARCH, HOT_DASHBOARD]) {
    progress(`${spec.id}: stored bytes, gateway${context.checkoutBaseline ? ', the --baseline gateway' : ''} and the peer, interleaved`);
    hot.push(await runHot(context, spec));
  }
  progress(`cold: upstream, bare proxy, peer, gateway${context.checkoutBaseline ? ' and the --baseline gateway' : ''}, interleaved`);
  const cold = await runCold(context);

  progress('single-flight: a second gateway, 200 identical requests at once');
  const countsAtStart = await context.lookupCounts();
  const second = await context.startGateway('gateway-2', memoryGatewayEnv(options));
  const singleFlight = await runSingleFlight(context, second, countsAtStart, HOT_FULL_SEARCH.operation, HOT_FULL_SEARCH.variables);
  context.checks.record('single-flight: exactly 1 upstream search call', singleFlight.searches === 1, `${singleFlight.searches}`);
  context.checks.record('single-flight: at most 1 upstream token call', singleFlight.tokens <= 1, `${singleFlight.tokens}`);
  await compareWithSecondGateway(context, second, hot);

  return { hot, cold, singleFlight, memory: await runMemoryCases(context, second) };
}

function memoryGatewayEnv(options: BenchOptions): Record<string, string> {
  return { CACHE_MAX_BYTES: String(options.memoryCacheBytes) };
}

/**
 * The memory cases, each on a gateway with the scenario's cache limit: full
 * pages on `fullPagesGateway` when given (the single-flight one), small windows
 * on a fresh one, so that its RSS growth is its own.
 */
async function runMemoryCases(context: BenchContext, fullPagesGateway?: Server): Promise<BenchResults['memory']> {
  const limit = context.options.memoryCacheBytes;
  const startGateway = (name: string) => context.startGateway(name, memoryGatewayEnv(context.options));
  progress(`memory: ${FULL_PAGES.title}, ten times the cache limit`);
  const fullPages = await runMemory(context, fullPagesGateway ?? (await startGateway('gateway-2')), limit, FULL_PAGES);
  progress(`memory: ${SMALL_WINDOWS.title}, a fresh gateway`);
  const smallWindows = await runMemory(context, await startGateway('gateway-3'), limit, SMALL_WINDOWS);
  return [fullPages, smallWindows];
}

function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

// Children are killed on exit (processes.ts), so a signal only needs to end this process.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
