import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/**
 * JSON lines on stdout. Paths that could carry a credential are redacted as a
 * second line of defence; no code path is meant to log them in the first place.
 *
 * Stdout is written asynchronously: lines logged while a write is under way
 * go out together in the next one, instead of one system call per request
 * line. pino flushes what is left when the process exits.
 */
export function createLogger(level: LogLevel, destination: DestinationStream = pino.destination({ dest: 1, sync: false })): Logger {
  return pino(
    {
      level,
      base: { service: 'company-search-gateway' },
      redact: {
        paths: ['clientSecret', '*.clientSecret', 'authorization', '*.authorization', 'headers.authorization', 'token', '*.token'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
