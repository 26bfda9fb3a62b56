import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { createLogger } from '../../src/gateway/logger.js';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import type { ChildMessage, GatewayStats, ParentMessage } from './protocol.js';

/**
 * The gateway under soak, in a process of its own (started by
 * gateway-process.ts with --expose-gc), so that a crash or a leak shows in
 * this process alone. Its log lines are counted, not printed.
 */

const MAX_DISTINCT_MESSAGES = 200;
const MAX_ERROR_SAMPLES = 5;
const MAX_SAMPLE_LENGTH = 600;

const logLevels: Record<string, number> = {};
const logMessages: Record<string, number> = {};
const errorSamples: string[] = [];
const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

function countLine(line: string): void {
  let level = 'unparsed';
  let message = line.slice(0, 100);
  try {
    const parsed = JSON.parse(line) as { level?: number; msg?: string };
    level = LEVEL_NAMES[parsed.level ?? 0] ?? String(parsed.level);
    message = (parsed.msg ?? '').replace(/\d+/g, '#').slice(0, 140);
  } catch {
    // Counted as unparsed: pino writes JSON, so this itself is worth seeing.
  }
  logLevels[level] = (logLevels[level] ?? 0) + 1;
  const key = `${level}: ${message}`;
  if (key in logMessages || Object.keys(logMessages).length < MAX_DISTINCT_MESSAGES) logMessages[key] = (logMessages[key] ?? 0) + 1;
  else logMessages['(other messages)'] = (logMessages['(other messages)'] ?? 0) + 1;
  if ((level === 'error' || level === 'fatal') && errorSamples.length < MAX_ERROR_SAMPLES) {
    errorSamples.push(line.slice(0, MAX_SAMPLE_LENGTH));
  }
}

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

async function stats(gc: boolean): Promise<GatewayStats> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (gc && collect) {
    // Two rounds with a turn of the event loop between: finalisers of the first free more for the second.
    collect();
    await new Promise((resolve) => setImmediate(resolve));
    collect();
  }
  const memory = process.memoryUsage();
  return { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed, logLevels, logMessages, errorSamples };
}

let gateway: RunningGateway | undefined;

// A crash is reported before the process dies, so that the soak run counts it with its cause.
async function crash(origin: string, error: unknown): Promise<void> {
  const described = error instanceof Error ? (error.stack ?? error.message) : String(error);
  await send({ type: 'crash', origin, error: described.slice(0, 2_000) });
  process.exit(70);
}
process.on('uncaughtException', (error, origin) => void crash(origin, error));
process.on('unhandledRejection', (reason) => void crash('unhandledRejection', reason));
// Without its parent nobody reads the results: stop rather than linger.
process.on('disconnect', () => process.exit(0));

process.on('message', (message: ParentMessage) => {
  if (message.type === 'start') {
    const config = { ...readConfig({}), port: 0, ...message.settings };
    const logger = createLogger('warn', { write: (line: string) => countLine(line.trimEnd()) });
    const { url, clientId, clientSecret } = message.upstream;
    startGateway(config, { url: new URL(url), clientId, clientSecret }, logger).then(
      (started) => {
        gateway = started;
        void send({ type: 'ready', graphqlUrl: started.graphqlUrl });
      },
      (error: unknown) => void crash('start', error),
    );
  } else {
    void stats(message.gc).then((result) => send({ type: 'stats', id: message.id, stats: result }));
  }
});

process.once('SIGTERM', () => {
  void (gateway?.close() ?? Promise.resolve()).finally(() => process.exit(0));
});
