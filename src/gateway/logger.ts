import { EventEmitter } from 'node:events';
import { pathOf } from './paths.js';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** JSON lines, for a collector; or one readable line per entry, for a person at a terminal. */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Lines wait until this many bytes are pending, so that a request's line costs
 * no system call of its own: dozens of lines go in one write. It must stay below
 * sonic-boom's largest write, 16 KiB.
 */
export const LOG_BUFFER_BYTES = 12 * 1024;

/** A quiet gateway's lines still go out within this long. */
export const LOG_FLUSH_INTERVAL_MS = 1000;

/**
 * Most bytes of lines held while the output does not take them (a stalled
 * pipe or collector): lines beyond are dropped and counted, not kept in
 * memory without end. A couple of seconds of lines at the busiest rate one
 * process answers.
 */
export const LOG_BUFFER_MAX_BYTES = 4 * 1024 * 1024;

/** Longest request path written in a request's line: a client chooses it, up to the whole header size. */
export const MAX_LOGGED_PATH_LENGTH = 200;

/**
 * Stdout (or `dest`), buffered: a write is a system call plus a hand-off to
 * libuv's thread pool and back, which on a gateway answering one request at a
 * time costs more than the line itself.
 * Pending lines go out once LOG_BUFFER_BYTES are waiting, every
 * LOG_FLUSH_INTERVAL_MS, on `logger.flush()`, and synchronously when the
 * process exits (pino registers that for every asynchronous destination).
 */
export function bufferedDestination(dest: number | string = 1): DestinationStream {
  const destination = pino.destination({
    dest,
    sync: false,
    minLength: LOG_BUFFER_BYTES,
    maxLength: LOG_BUFFER_MAX_BYTES,
    periodicFlush: LOG_FLUSH_INTERVAL_MS,
    // Kept as a list of lines' bytes: in its text mode sonic-boom appends each line to the pending string and measures
    // that whole string again (Buffer.byteLength, copying it flat), a cost that grows with the kilobytes waiting.
    contentMode: 'buffer',
  });
  // pino hands each line over as a string; this mode takes bytes. Set on the instance, where sonic-boom sets its own write.
  const writeBytes = destination.write;
  destination.write = (line: string) => writeBytes.call(destination, Buffer.from(line) as unknown as string);
  return destination;
}

/**
 * Stdout as a person reads it: a line per entry, its time, level and message
 * first and its fields after, coloured where the terminal takes colours.
 * Written as each line comes (a terminal is not a hot path), through
 * pino-pretty, loaded only here: a gateway logging JSON never loads it.
 */
export async function prettyDestination(): Promise<DestinationStream> {
  const { default: pretty } = await import('pino-pretty');
  return pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
}

/** Where `format` sends lines: stdout, buffered, for JSON; as they come for a person. */
export function destinationFor(format: LogFormat): Promise<DestinationStream> | DestinationStream {
  return format === 'pretty' ? prettyDestination() : bufferedDestination();
}

/**
 * JSON lines on stdout. Paths that could carry a credential are redacted as a
 * second line of defence; no code path is meant to log them in the first place.
 * `mixin` adds fields to every line (with tracing on, the active span's ids);
 * without one, a line costs nothing more.
 */
export function createLogger(level: LogLevel, destination: DestinationStream = bufferedDestination(), mixin?: () => object): Logger {
  const logger = pino(
    {
      level,
      ...(mixin === undefined ? {} : { mixin }),
      base: { service: 'company-search-gateway' },
      redact: {
        paths: ['clientSecret', '*.clientSecret', 'authorization', '*.authorization', 'headers.authorization', 'token', '*.token'],
        censor: '[redacted]',
      },
    },
    destination,
  );
  reportDroppedLines(logger, destination);
  return logger;
}

/**
 * Lines a buffered destination dropped (its 'drop' event, past
 * LOG_BUFFER_MAX_BYTES) are counted, and the count is logged once the output
 * takes lines again (its next 'write'), so a gap in the log says how large it is.
 */
function reportDroppedLines(logger: Logger, destination: DestinationStream): void {
  if (!(destination instanceof EventEmitter)) return;
  let dropped = 0;
  destination.on('drop', () => {
    dropped += 1;
  });
  destination.on('write', () => {
    if (dropped === 0) return;
    // Reset first: the warning's own write may report back here at once.
    const count = dropped;
    dropped = 0;
    logger.warn({ dropped: count }, 'Log lines dropped: the log output did not take them in time');
  });
}

/** A request's path as its line logs it: without the query, at most MAX_LOGGED_PATH_LENGTH characters. */
export function loggedPath(url: string | undefined): string | undefined {
  const path = url === undefined ? undefined : pathOf(url);
  return path !== undefined && path.length > MAX_LOGGED_PATH_LENGTH ? `${path.slice(0, MAX_LOGGED_PATH_LENGTH)}…` : path;
}

/**
 * The logger of the one line every request writes: a child without redaction.
 * That line's fields are fixed (method, path, status, duration) and never hold
 * a credential, and redaction would multiply its cost on the hot path.
 */
export function accessLoggerOf(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
}
