import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { bufferedDestination, createLogger } from '../../../src/gateway/logger.js';
import { optionsOf } from '../../../src/gateway/options-from-settings.js';
import { startGateway, type RunningGateway } from '../../../src/gateway/server.js';
import { collectGarbage, serveParent } from '../../harness/serve-parent.js';

/**
 * A log whose output has stalled, in a process of its own started with --expose-gc, so that what its waiting lines
 * hold is measured where nothing else allocates between two heap readings (log-buffer.test.ts drives it).
 *
 * The output is a FIFO that nobody reads, so that writes stall once the pipe holds 64 KiB, as stdout does when
 * whatever reads it stops; `drain` starts a reader.
 */

/** What pino's buffered destination (a SonicBoom) has besides a write. */
interface SonicBoomEnd {
  end(): void;
  once(event: 'close', listener: () => void): unknown;
}

const dir = mkdtempSync(join(tmpdir(), 'log-buffer-'));
const fifo = join(dir, 'stdout');
execFileSync('mkfifo', [fifo]);
// Opened for reading and writing, so that opening does not wait for a reader.
const destination = bufferedDestination(openSync(fifo, 'r+')) as ReturnType<typeof bufferedDestination> & SonicBoomEnd;
const logger = createLogger('info', destination);
const reader = createReadStream(fifo, { encoding: 'latin1' });
reader.pause();
let read = '';
let gateway: RunningGateway | undefined;

async function heapAfterGc(): Promise<number> {
  await collectGarbage();
  return process.memoryUsage().heapUsed;
}

serveParent(
  {
    /** A gateway logging to the stalled output, in front of the upstream given. */
    async startGateway(params) {
      const upstream = params as { url: string; clientId: string; clientSecret: string };
      const config = { ...readConfig({}), port: 0, rateLimitPerMinute: 0 };
      gateway = await startGateway({ ...optionsOf(config).gateway, target: { ...upstream, url: new URL(upstream.url) }, logger });
      return gateway.url;
    },
    heapAfterGc,
    /** Logs `lines` lines, each with a detail of `detailLength` characters. */
    log(params) {
      const { lines, detailLength } = params as { lines: number; detailLength: number };
      const detail = 'd'.repeat(detailLength);
      for (let i = 0; i < lines; i++) logger.info({ detail }, 'line');
      return lines;
    },
    /** Starts reading the output; resolves with all it read once the report of dropped lines is there. */
    drain() {
      return new Promise<string>((resolve) => {
        reader.on('data', (chunk) => {
          read += chunk;
          if (read.includes('Log lines dropped')) resolve(read);
        });
        reader.resume();
      });
    },
  },
  async () => {
    await gateway?.close();
    // A reader lets the pending lines, and pino's flush at exit, go out.
    reader.resume();
    await new Promise<void>((resolve) => {
      destination.once('close', () => resolve());
      destination.end();
    });
    reader.destroy();
    rmSync(dir, { recursive: true, force: true });
  },
);
