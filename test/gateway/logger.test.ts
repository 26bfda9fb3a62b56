import { once, type EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accessLoggerOf, bufferedDestination, createLogger, LOG_BUFFER_BYTES, LOG_FLUSH_INTERVAL_MS } from '../../src/gateway/logger.js';

describe('createLogger', () => {
  it('redacts credential fields wherever a caller puts them', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    logger.info(
      {
        clientSecret: 'secret-1',
        upstream: { clientSecret: 'secret-2', authorization: 'Bearer token-1' },
        headers: { authorization: 'Bearer token-2' },
        token: 'token-3',
        auth: { token: 'token-4' },
      },
      'configuration',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/secret-\d|token-\d/);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      clientSecret: '[redacted]',
      upstream: { clientSecret: '[redacted]', authorization: '[redacted]' },
      headers: { authorization: '[redacted]' },
      token: '[redacted]',
      auth: { token: '[redacted]' },
    });
  });
});

describe('accessLoggerOf', () => {
  it('writes request lines to the same destination, at the same level, as the logger it is made from', () => {
    const lines: string[] = [];
    const access = accessLoggerOf(createLogger('warn', { write: (line: string) => lines.push(line) }));
    access.info({ method: 'POST', path: '/graphql', status: 200, durationMs: 0.4 }, 'request');
    access.warn({ method: 'GET', path: '/health', status: 200, durationMs: 0.1 }, 'request');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      {
        level: 40,
        time: expect.any(Number),
        service: 'company-search-gateway',
        method: 'GET',
        path: '/health',
        status: 200,
        durationMs: 0.1,
        msg: 'request',
      },
    ]);
  });
});

/**
 * A buffered destination on a file of its own, open, its periodic flush on vitest's fake interval: only the test
 * moves that timer on, so a busy machine cannot flush early, and a write that does happen is the buffer's own.
 * `writes` holds the bytes of each write the destination has made, in order: that nothing went out before a write
 * the test awaits shows as that write being the first, and holding every line.
 */
async function bufferedFile() {
  const directory = await mkdtemp(join(tmpdir(), 'gateway-log-'));
  const file = join(directory, 'out.log');
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const destination = bufferedDestination(file) as DestinationStream & EventEmitter;
  // Lines logged before the file is open wait for it whatever the buffer does: each test starts once it is.
  await once(destination, 'ready');
  const writes: number[] = [];
  destination.on('write', (bytes: number) => writes.push(bytes));
  return {
    destination,
    logger: createLogger('info', destination),
    written: () => readFile(file, 'utf8').catch(() => ''),
    writes,
    /** Resolves when the destination has written, whatever set the write off. */
    nextWrite: () => once(destination, 'write'),
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

describe('bufferedDestination', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds short lines back, then writes them together within LOG_FLUSH_INTERVAL_MS', async () => {
    const { logger, written, writes, nextWrite, remove } = await bufferedFile();
    try {
      // Unbuffered, the first line would go out at once, and its write be the one awaited below.
      const flushed = nextWrite();
      logger.info({ n: 1 }, 'first');
      logger.info({ n: 2 }, 'second');

      vi.advanceTimersByTime(LOG_FLUSH_INTERVAL_MS);
      await flushed;
      const text = await written();
      // One write, the flush's, with both lines: nothing went out before it.
      expect(writes).toEqual([Buffer.byteLength(text)]);
      expect(
        text
          .trimEnd()
          .split('\n')
          .map((line) => (JSON.parse(line) as { msg: string }).msg),
      ).toEqual(['first', 'second']);
    } finally {
      logger.flush();
      await remove();
    }
  });

  it('writes nothing while less than LOG_BUFFER_BYTES wait, and writes as soon as that much does', async () => {
    const { logger, writes, nextWrite, remove } = await bufferedFile();
    try {
      const line = (n: number) => logger.info({ n: String(n).padStart(4, '0'), padding: 'x'.repeat(200) }, 'line');
      const measured: string[] = [];
      createLogger('info', { write: (text: string) => measured.push(text) }).info({ n: '0000', padding: 'x'.repeat(200) }, 'line');
      const lineBytes = Buffer.byteLength(measured[0]!);
      const below = Math.floor((LOG_BUFFER_BYTES - 1) / lineBytes);
      // Unbuffered, the first line would go out at once, and its write be the one awaited below.
      const filled = nextWrite();
      for (let n = 0; n < below; n += 1) line(n);

      // The flush timer never fires here: the write is the buffer's.
      line(below);
      line(below + 1);
      const [bytes] = (await filled) as [number];
      // The first write takes every line pending when the buffer filled (a line logged during it goes in the next):
      // nothing went out while less than LOG_BUFFER_BYTES waited.
      expect(writes[0]).toBe(bytes);
      expect(bytes).toBeGreaterThan(below * lineBytes);
    } finally {
      logger.flush();
      await remove();
    }
  });
});
