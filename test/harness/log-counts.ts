import type { LogCounts } from './protocol.js';

const MAX_DISTINCT_MESSAGES = 200;
const MAX_ERROR_SAMPLES = 5;
const MAX_SAMPLE_LENGTH = 600;
const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** Counts pino's JSON log lines by level and message, in bounded memory, keeping the first error lines as samples. */
export class LogCounter {
  readonly counts: LogCounts = { levels: {}, messages: {}, errorSamples: [] };

  count(line: string): void {
    const { levels, messages, errorSamples } = this.counts;
    let level = 'unparsed';
    let message = line.slice(0, 100);
    try {
      const parsed = JSON.parse(line) as { level?: number; msg?: string };
      level = LEVEL_NAMES[parsed.level ?? 0] ?? String(parsed.level);
      message = (parsed.msg ?? '').replace(/\d+/g, '#').slice(0, 140);
    } catch {
      // Counted as unparsed: pino writes JSON, so this itself is worth seeing.
    }
    levels[level] = (levels[level] ?? 0) + 1;
    const key = `${level}: ${message}`;
    if (key in messages || Object.keys(messages).length < MAX_DISTINCT_MESSAGES) messages[key] = (messages[key] ?? 0) + 1;
    else messages['(other messages)'] = (messages['(other messages)'] ?? 0) + 1;
    if ((level === 'error' || level === 'fatal') && errorSamples.length < MAX_ERROR_SAMPLES) {
      errorSamples.push(line.slice(0, MAX_SAMPLE_LENGTH));
    }
  }
}
