/**
 * What the log can hold when its output stalls, and what one request's line
 * can take. Found by the adversarial review of issue 12: sonic-boom was
 * configured without maxLength, and a request's line held its whole path.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { bufferedDestination, createLogger, LOG_BUFFER_MAX_BYTES, MAX_LOGGED_PATH_LENGTH } from '../../src/gateway/logger.js';
import { startGateway } from '../../src/gateway/server.js';
import { startLookupService } from '../../src/lookup-service/index.js';
import { heapAfterGc } from '../support/heap.js';
import { within } from '../support/within.js';
import { startStack } from '../support/stack.js';

const MiB = 1024 * 1024;

/** What pino's buffered destination (a SonicBoom) has besides a write. */
interface SonicBoomEnd {
  end(): void;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * A buffered destination writing to a FIFO that nobody reads, so that writes stall once the pipe holds 64 KiB,
 * as stdout does when whatever reads it stops; `drain` starts a reader and resolves with all it read once `done` says so.
 */
async function withStalledOutput(
  use: (destination: ReturnType<typeof bufferedDestination>, drain: (done: (text: string) => boolean) => Promise<string>) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'log-buffer-'));
  const fifo = join(dir, 'stdout');
  execFileSync('mkfifo', [fifo]);
  // Opened for reading and writing, so that opening does not wait for a reader.
  const destination = bufferedDestination(openSync(fifo, 'r+')) as ReturnType<typeof bufferedDestination> & SonicBoomEnd;
  const reader = createReadStream(fifo, { encoding: 'latin1' });
  reader.pause();
  let read = '';
  const drain = (done: (text: string) => boolean) =>
    new Promise<string>((resolve) => {
      reader.on('data', (chunk) => {
        read += chunk;
        if (done(read)) resolve(read);
      });
      reader.resume();
    });
  try {
    await use(destination, drain);
  } finally {
    // A reader lets the pending lines, and pino's flush at exit, go out.
    reader.resume();
    await new Promise<void>((resolve) => {
      destination.once('close', () => resolve());
      destination.end();
    });
    reader.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('log lines waiting for a stalled output', () => {
  // Review: 4,000 refused requests with a 12 KB path held +49 MiB while stdout did not drain.
  it('are bounded, however many requests come and whatever their paths', async () => {
    await withStalledOutput(async (destination) => {
      const lookup = await startLookupService();
      const config = { ...readConfig({}), port: 0, rateLimitPerMinute: 0 };
      const gateway = await startGateway(config, { url: new URL(lookup.url), ...lookup.credentials }, createLogger('info', destination));
      try {
        const before = heapAfterGc();
        const path = `/${'p'.repeat(12_000)}`;
        let sent = 0;
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (sent++ < 4_000) await (await request(`${gateway.url}${path}`)).body.text();
          }),
        );
        expect((heapAfterGc() - before) / MiB).toBeLessThan(16);
      } finally {
        await gateway.close();
        await lookup.close();
      }
    });
  }, 60_000);

  it('are held up to LOG_BUFFER_MAX_BYTES; the rest are dropped, and how many is logged once the output takes lines again', async () => {
    await withStalledOutput(async (destination, drain) => {
      const logger = createLogger('info', destination);
      const detail = 'd'.repeat(1_000);
      const before = heapAfterGc();
      // Four times what may be held.
      const lines = Math.ceil((4 * LOG_BUFFER_MAX_BYTES) / detail.length);
      for (let i = 0; i < lines; i++) logger.info({ detail }, 'line');
      expect(heapAfterGc() - before).toBeLessThan(LOG_BUFFER_MAX_BYTES + 2 * MiB);
      const output = await within(
        drain((text) => text.includes('Log lines dropped')),
        15_000,
        'the report of dropped lines',
      );
      const report = output.split('\n').find((line) => line.includes('Log lines dropped'))!;
      const written = output.split('\n').filter((line) => line.includes('"msg":"line"')).length;
      expect(JSON.parse(report)).toMatchObject({ level: 40, dropped: lines - written });
    });
  }, 60_000);
});

describe("a request's line", () => {
  it(`logs at most ${MAX_LOGGED_PATH_LENGTH} characters of the path the client chose`, async () => {
    const stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
    try {
      expect((await stack.get(`/${'p'.repeat(12_000)}?q=1`)).status).toBe(404);
      const line = stack.logs.map((text) => JSON.parse(text) as { msg: string; path?: string }).find((entry) => entry.msg === 'request');
      expect(line?.path).toBe(`/${'p'.repeat(MAX_LOGGED_PATH_LENGTH - 1)}…`);
    } finally {
      await stack.close();
    }
  });
});
