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

/**
 * The logger of the one line every request writes: a child without redaction.
 * That line's fields are fixed (method, path, status, duration) and never hold
 * a credential, and redaction would nearly triple its cost on the hot path
 * (about 4.5 µs against 1.6 µs a line).
 */
export function accessLoggerOf(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
}
