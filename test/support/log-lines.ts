import type { UpstreamLog } from '../../src/upstream/log.js';

export interface LogLine {
  level: 'debug' | 'info' | 'warn';
  message: string;
  details: Record<string, unknown>;
}

/** An UpstreamLog that keeps its lines, and tells a test when one comes. */
export interface CollectedLog extends UpstreamLog {
  readonly lines: LogLine[];
  /** Resolves at the `count`-th line (counted from the first ever) whose message contains `text`. */
  next(text: string, count?: number): Promise<LogLine>;
  count(text: string): number;
}

export function collectedLog(): CollectedLog {
  const lines: LogLine[] = [];
  const waiters: { text: string; count: number; resolve: (line: LogLine) => void }[] = [];
  const matching = (text: string) => lines.filter((line) => line.message.includes(text));
  const add = (level: LogLine['level']) => (details: Record<string, unknown>, message: string) => {
    lines.push({ level, message, details });
    for (const waiter of [...waiters]) {
      const found = matching(waiter.text);
      if (found.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(found[waiter.count - 1]!);
      }
    }
  };
  return {
    lines,
    debug: add('debug'),
    info: add('info'),
    warn: add('warn'),
    count: (text) => matching(text).length,
    next(text, count = matching(text).length + 1) {
      const found = matching(text);
      if (found.length >= count) return Promise.resolve(found[count - 1]!);
      return new Promise((resolve) => waiters.push({ text, count, resolve }));
    },
  };
}
