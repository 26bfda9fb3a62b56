import type { Crash } from '../harness/child-process.js';
import type { GatewayStats } from '../harness/protocol.js';
import type { SoakOptions } from './options.js';
import { HEAP_GROWTH_LIMIT_BYTES, SOAK_GATEWAY_SETTINGS } from './settings.js';
import type { Tally, UpstreamCalls } from './tally.js';

const MAX_IN_FLIGHT = SOAK_GATEWAY_SETTINGS.upstreamMaxInFlight;

export interface PhaseSummary {
  name: string;
  runs: number;
  seconds: number;
  tally: Tally;
  upstream: UpstreamCalls;
}

export interface SoakResult {
  options: SoakOptions;
  /** Seconds of load, warm-up included. */
  loadSeconds: number;
  total: Tally;
  phases: PhaseSummary[];
  upstream: UpstreamCalls;
  start: Required<GatewayStats>;
  end: Required<GatewayStats>;
  crashes: Crash[];
  finalProblems: string[];
}

const CIRCUIT_OPENED = 'warn: Company lookup service keeps failing; holding calls back';
const RETRIED = 'warn: Search failed; retrying after a backoff';

const number = (value: number) => value.toLocaleString('en-US');
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const signedMib = (bytes: number) => `${bytes >= 0 ? '+' : ''}${mib(bytes)}`;

function sorted(map: Map<string, number> | Record<string, number>): [string, number][] {
  return [...(map instanceof Map ? map : Object.entries(map))].sort((a, b) => b[1] - a[1]);
}

function inline(map: Map<string, number>): string {
  const entries = sorted(map);
  return entries.length === 0 ? '-' : entries.map(([key, count]) => `${key} ${number(count)}`).join(', ');
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** The short line printed every few seconds while the run goes on. */
export function progressLine(progress: {
  elapsedSeconds: number;
  phase: string;
  requestsPerSecond: number;
  total: Tally;
  upstream: UpstreamCalls;
  stats: GatewayStats | undefined;
  crashes: number;
}): string {
  const { total, upstream, stats } = progress;
  return [
    `[${String(Math.round(progress.elapsedSeconds)).padStart(4)} s] ${progress.phase.padEnd(26)}`,
    `${number(Math.round(progress.requestsPerSecond)).padStart(5)} req/s`,
    `served ${number(total.requests)}`,
    `bad ${number(total.invalid)}`,
    `errors ${number(total.errors)}`,
    `stale ${number(total.staleOnError)}`,
    `upstream search ${number(upstream.searches)} token ${number(upstream.tokens)}`,
    stats ? `heap ${mib(stats.heapUsedBytes)} rss ${mib(stats.rssBytes)}` : 'heap ?',
    `crashes ${progress.crashes}`,
  ].join(' | ');
}

/** What made the run fail; empty when it passed. */
export function failures(result: SoakResult): string[] {
  const found: string[] = [];
  const { total } = result;
  if (result.crashes.length > 0) found.push(`${result.crashes.length} gateway crash(es)`);
  const fiveHundreds = sorted(total.outcomes).filter(([outcome]) => outcome.startsWith('5'));
  if (fiveHundreds.length > 0) found.push(`5xx answers: ${fiveHundreds.map(([status, count]) => `${status} ×${count}`).join(', ')}`);
  if (total.invalid > 0) found.push(`${number(total.invalid)} answers were not a status-200 GraphQL response (or never came)`);
  const uncoded = sorted(total.errorCodes).filter(([code]) => !code.startsWith('UPSTREAM_'));
  if (uncoded.length > 0) found.push(`errors without an upstream code: ${uncoded.map(([code, count]) => `${code} ×${count}`).join(', ')}`);
  if (result.finalProblems.length > 0) found.push(`the final healthy check failed: ${result.finalProblems.join('; ')}`);
  const growth = result.end.heapUsedBytes - result.start.heapUsedBytes;
  if (result.crashes.length === 0 && growth > HEAP_GROWTH_LIMIT_BYTES) {
    found.push(`heap grew by ${mib(growth)}, above the ${mib(HEAP_GROWTH_LIMIT_BYTES)} bound (64 MiB + cache limit)`);
  }
  return found;
}

/** The full report printed at the end. */
export function finalReport(result: SoakResult): string[] {
  const { total, upstream, start, end, options } = result;
  const { log } = end;
  const lines: string[] = [];
  const rps = total.requests / result.loadSeconds;
  lines.push('', '=== Soak run report ===');
  lines.push(
    `Load: ${options.concurrency} concurrent clients, ${options.durationSeconds} s of faults in ${options.phaseSeconds} s phases plus warm-up and a final healthy phase (${result.loadSeconds.toFixed(0)} s of load)`,
  );
  lines.push(`Requests served: ${number(total.requests)} (${rps.toFixed(1)} req/s); by HTTP status: ${inline(total.outcomes)}`);
  lines.push(`By operation: ${inline(total.operations)}`);
  lines.push(
    `Answers without errors: ${number(total.clean)}; with GraphQL errors: ${number(total.requests - total.clean - total.invalid)}`,
  );
  lines.push(`GraphQL errors by extensions.code: ${inline(total.errorCodes)}`);
  lines.push(
    `Stale answers: ${number(total.staleOnError)} with a STALE_DATA warning (upstream failed); ${number(total.staleRevalidating)} stale while revalidating; ${number(total.staleMismatches)} warned but stale:false`,
  );
  lines.push(
    `Latency: max ${Math.round(total.maxLatencyMs)} ms; ${number(total.overDeadline)} answers took longer than the request deadline + 1 s`,
  );
  lines.push(
    `Upstream calls: ${number(upstream.searches)} searches, ${number(upstream.tokens)} token requests; at most ${upstream.maxSearchesInFlight} searches in flight (UPSTREAM_MAX_IN_FLIGHT ${MAX_IN_FLIGHT}); ${(upstream.searches / Math.max(1, total.requests)).toFixed(2)} searches per request`,
  );
  if (upstream.maxSearchesInFlight > MAX_IN_FLIGHT) {
    // Not a failure by itself: a call the gateway abandons at its deadline frees its slot at once, while the upstream may still hold it open.
    lines.push(`  note: the upstream saw more searches at once than UPSTREAM_MAX_IN_FLIGHT; see the max in flight by phase`);
  }
  lines.push(
    `Circuit breaker opened ${number(log.messages[CIRCUIT_OPENED] ?? 0)} times; searches retried ${number(log.messages[RETRIED] ?? 0)} times`,
  );
  lines.push(`Crashes: ${result.crashes.length}`);
  for (const crash of result.crashes)
    lines.push(`  ${crash.at.toISOString()} ${crash.origin}: ${crash.error.split('\n').slice(0, 6).join('\n    ')}`);
  lines.push(
    `Gateway memory after warm-up: rss ${mib(start.rssBytes)}, heap used ${mib(start.heapUsedBytes)}; at the end after GC: rss ${mib(end.rssBytes)}, heap used ${mib(end.heapUsedBytes)} (heap ${signedMib(end.heapUsedBytes - start.heapUsedBytes)}, bound ${mib(HEAP_GROWTH_LIMIT_BYTES)})`,
  );
  if (result.crashes.length > 0)
    lines.push(
      '  note: the gateway was restarted after a crash, so start and end are different processes; log counts cover the last one only',
    );
  lines.push(
    `Final healthy check: ${result.finalProblems.length === 0 ? 'passed (search, company and node answered fresh, without errors)' : 'FAILED'}`,
  );
  for (const problem of result.finalProblems) lines.push(`  ${problem}`);

  lines.push('', 'By phase (all runs of each phase together):');
  lines.push(
    ...table([
      ['phase', 'runs', 'requests', 'req/s', 'clean', 'stale', 'bad', 'max ms', 'searches', 'tokens', 'max in flight', 'errors by code'],
      ...result.phases.map((phase) => [
        phase.name,
        String(phase.runs),
        number(phase.tally.requests),
        (phase.tally.requests / phase.seconds).toFixed(0),
        number(phase.tally.clean),
        number(phase.tally.staleOnError),
        number(phase.tally.invalid),
        String(Math.round(phase.tally.maxLatencyMs)),
        number(phase.upstream.searches),
        number(phase.upstream.tokens),
        String(phase.upstream.maxSearchesInFlight),
        inline(phase.tally.errorCodes),
      ]),
    ]).map((line) => `  ${line}`),
  );

  lines.push('', `Gateway log lines (warn and above) by level: ${inline(new Map(Object.entries(log.levels)))}`);
  for (const [message, count] of sorted(log.messages).slice(0, 15)) lines.push(`  ${number(count).padStart(9)}  ${message}`);
  for (const sample of log.errorSamples) lines.push(`  error line: ${sample}`);
  if (total.invalidSamples.length > 0) {
    lines.push('', 'First bad answers:');
    for (const sample of total.invalidSamples) lines.push(`  ${sample}`);
  }

  const found = failures(result);
  lines.push('', found.length === 0 ? 'RESULT: PASS' : 'RESULT: FAIL');
  for (const failure of found) lines.push(`  - ${failure}`);
  return lines;
}
