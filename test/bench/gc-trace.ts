import { readFileSync } from 'node:fs';

/** One kind of collection in a --trace-gc log: how many, their pauses, and for mark-compacts the incremental marking before them. */
export interface TracedKind {
  kind: string;
  count: number;
  totalMs: number;
  longestMs: number;
  /** Incremental marking steps, taken between pauses while the program ran: their total and the biggest. */
  stepsMs: number;
  biggestStepMs: number;
}

/**
 * A line of V8's --trace-gc (Node 20): `[pid:isolate]  1234 ms: Scavenge 9.9 (14.4) -> 9.9 (14.7) MB, 1.23 / 0.00 ms ...`,
 * a mark-compact's with `(+ 12.3 ms in 45 steps since start of marking, biggest step 1.2 ms, ...)` after its pause.
 */
const TRACE_LINE =
  /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: (\S+(?: \S+)*?) [\d.]+ \([\d.]+\) -> [\d.]+ \([\d.]+\) MB, ([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in \d+ steps since start of marking, biggest step ([\d.]+) ms)?/;

/** The collections a --trace-gc log written by a child (its stdout, other lines mixed in) records, by kind. */
export function summarizeGcTrace(path: string): TracedKind[] {
  const kinds = new Map<string, TracedKind>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = TRACE_LINE.exec(line);
    if (match === null) continue;
    const [, kind = '', pause = '0', steps = '0', biggestStep = '0'] = match;
    const entry = kinds.get(kind) ?? { kind, count: 0, totalMs: 0, longestMs: 0, stepsMs: 0, biggestStepMs: 0 };
    entry.count += 1;
    entry.totalMs += Number(pause);
    entry.longestMs = Math.max(entry.longestMs, Number(pause));
    entry.stepsMs += Number(steps);
    entry.biggestStepMs = Math.max(entry.biggestStepMs, Number(biggestStep));
    kinds.set(kind, entry);
  }
  return [...kinds.values()];
}

/** One line per kind, for a report. */
export function gcTraceLines(name: string, kinds: TracedKind[]): string[] {
  if (kinds.length === 0) return [`- ${name}: no collection traced`];
  return kinds.map(
    ({ kind, count, totalMs, longestMs, stepsMs, biggestStepMs }) =>
      `- ${name}: ${count} × ${kind}, ${totalMs.toFixed(1)} ms of pauses, the longest ${longestMs.toFixed(2)} ms` +
      (stepsMs > 0
        ? `; incremental marking before them ${stepsMs.toFixed(1)} ms in steps, the biggest ${biggestStepMs.toFixed(2)} ms`
        : ''),
  );
}
