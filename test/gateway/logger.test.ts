import { once, type EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
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
 * A buffered destination on a file of its own, its periodic flush on vitest's fake interval: only the test moves
 * that timer on, so a busy machine cannot flush early, and a write that does happen is the buffer's own.
 */
async function bufferedFile() {
  const directory = await mkdtemp(join(tmpdir(), 'gateway-log-'));
  const file = join(directory, 'out.log');
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const destination = bufferedDestination(file) as DestinationStream & EventEmitter;
  return {
    destination,
    logger: createLogger('info', destination),
    written: () => readFile(file, 'utf8').catch(() => ''),
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
    const { logger, written, nextWrite, remove } = await bufferedFile();
    try {
      logger.info({ n: 1 }, 'first');
      logger.info({ n: 2 }, 'second');
      // An unbuffered asynchronous write lands well within this; the flush timer cannot fire meanwhile.
      await setTimeout(100);
      expect(await written()).toBe('');

      const flushed = nextWrite();
      vi.advanceTimersByTime(LOG_FLUSH_INTERVAL_MS);
      await flushed;
      expect(
        (await written())
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
    const { logger, written, nextWrite, remove } = await bufferedFile();
    try {
      const line = (n: number) => logger.info({ n: String(n).padStart(4, '0'), padding: 'x'.repeat(200) }, 'line');
      const measured: string[] = [];
      createLogger('info', { write: (text: string) => measured.push(text) }).info({ n: '0000', padding: 'x'.repeat(200) }, 'line');
      const below = Math.floor((LOG_BUFFER_BYTES - 1) / Buffer.byteLength(measured[0]!));
      for (let n = 0; n < below; n += 1) line(n);
      await setTimeout(100);
      expect(await written()).toBe('');

      // The flush timer never fires here: the write is the buffer's.
      const filled = nextWrite();
      line(below);
      line(below + 1);
      await filled;
      // The write takes what was pending when the buffer filled; a line logged during it goes in the next.
      expect((await written()).trimEnd().split('\n').length).toBeGreaterThan(below);
    } finally {
      logger.flush();
      await remove();
    }
  });
});
