import { PerformanceObserver } from 'node:perf_hooks';
import type { CallMessage, ChildMessage, ProcessStats } from './protocol.js';

export type Handlers = Record<string, (params: unknown) => unknown>;

/** Exit code of a child that died of an uncaught error (EX_SOFTWARE). */
const CRASH_EXIT_CODE = 70;
const MAX_CRASH_TEXT = 2_000;

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * Answers the parent's calls over IPC. The child lives exactly as long as the
 * channel: when the parent goes, however it goes, `close` runs (e.g. a
 * server finishing its requests) and the child exits. An uncaught error is
 * reported to the parent before the child dies, so that it can say why.
 */
export function serveParent(handlers: Handlers, close: () => Promise<void> = () => Promise.resolve()): void {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('A harness child must be started with an IPC channel');
  const reply = (message: ChildMessage) => new Promise<void>((resolve) => send(message, undefined, {}, () => resolve()));

  const builtIn: Handlers = { longestGcPause };
  process.on('message', (message: CallMessage) => {
    const handler = handlers[message.method] ?? builtIn[message.method];
    Promise.resolve()
      .then(() => {
        if (handler === undefined) throw new Error(`Unknown call ${message.method}`);
        return handler(message.params);
      })
      .then(
        (result: unknown) => reply({ id: message.id, result }),
        (error: unknown) => reply({ id: message.id, error: describe(error) }),
      );
  });
  const crash = (origin: string, error: unknown) => {
    const report = process.connected ? reply({ crash: { origin, error: describe(error).slice(0, MAX_CRASH_TEXT) } }) : Promise.resolve();
    void report.finally(() => process.exit(CRASH_EXIT_CODE));
  };
  process.on('uncaughtException', (error, origin) => crash(origin, error));
  process.on('unhandledRejection', (reason) => crash('unhandledRejection', reason));
  process.once('disconnect', () => {
    close().then(
      () => process.exit(0),
      (error: unknown) => crash('close', error),
    );
  });
  void reply({ alive: true });
}

/**
 * The process's garbage collections as perf_hooks reports them: each pause
 * of the main thread (a scavenge, a mark-compact's atomic pause, the start of
 * incremental marking), observed from the child's start. Incremental marking
 * steps taken between them are not reported (`--trace-gc` shows them).
 */
const gc = { pauses: 0, totalUs: 0, longestUsSinceRead: 0 };
new PerformanceObserver((list) => {
  for (const { duration } of list.getEntries()) {
    const us = duration * 1000;
    gc.pauses += 1;
    gc.totalUs += us;
    gc.longestUsSinceRead = Math.max(gc.longestUsSinceRead, us);
  }
}).observe({ entryTypes: ['gc'] });

export function processStats(): ProcessStats {
  const { user, system } = process.cpuUsage();
  const { rss, heapUsed } = process.memoryUsage();
  return { cpuUs: user + system, rssBytes: rss, heapUsedBytes: heapUsed, gcPauses: gc.pauses, gcUs: gc.totalUs };
}

/**
 * The longest GC pause (µs) since the last call, every child's: read before
 * and after a round, it gives the round's. GC entries reach observers a turn
 * of the event loop after the collection, so one turn is let pass first.
 */
async function longestGcPause(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  const longest = gc.longestUsSinceRead;
  gc.longestUsSinceRead = 0;
  return longest;
}

/**
 * Full collections, with a turn of the event loop between them (finalisers
 * of one free more for the next), so that memory figures reflect live data.
 * Needs --expose-gc, which every harness child has.
 */
export async function collectGarbage(rounds = 3): Promise<void> {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('gc is not exposed; start the child with --expose-gc');
  for (let round = 0; round < rounds; round++) {
    if (round > 0) await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
}
