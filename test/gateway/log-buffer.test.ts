/**
 * What the log can hold when its output stalls, and what one request's line
 * can take. Found by the adversarial review of issue 12: sonic-boom was
 * configured without maxLength, and a request's line held its whole path.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_BUFFER_MAX_BYTES, MAX_LOGGED_PATH_LENGTH } from '../../src/gateway/logger.js';
import { startLookupService } from '../../src/lookup-service/index.js';
import { HarnessChild } from '../harness/child-process.js';
import { within } from '../support/within.js';
import { startStack } from '../support/stack.js';

const MiB = 1024 * 1024;

/**
 * The stalled log lives in a process of its own (children/stalled-log.ts, with --expose-gc), where nothing else
 * allocates between two heap readings: in the test process, what else a loaded run does would be measured with it.
 */
let child: HarnessChild | undefined;
afterEach(async () => {
  await child?.stop();
  child = undefined;
});

async function stalledLog(): Promise<HarnessChild> {
  child = await HarnessChild.spawn({
    name: 'stalled-log',
    script: 'test/gateway/children/stalled-log.ts',
    env: { PATH: process.env.PATH, NODE_ENV: 'test' },
    stdout: 'stderr',
  });
  return child;
}

describe('log lines waiting for a stalled output', () => {
  // Review: 4,000 refused requests with a 12 KB path held +49 MiB while stdout did not drain.
  it('are bounded, however many requests come and whatever their paths', async () => {
    const log = await stalledLog();
    const lookup = await startLookupService();
    try {
      const url = await log.call<string>('startGateway', { url: lookup.url, ...lookup.credentials });
      const before = await log.call<number>('heapAfterGc');
      const path = `/${'p'.repeat(12_000)}`;
      let sent = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (sent++ < 4_000) await (await request(`${url}${path}`)).body.text();
        }),
      );
      expect(((await log.call<number>('heapAfterGc')) - before) / MiB).toBeLessThan(16);
    } finally {
      await child?.stop();
      await lookup.close();
    }
  }, 60_000);

  it('are held up to LOG_BUFFER_MAX_BYTES; the rest are dropped, and how many is logged once the output takes lines again', async () => {
    const log = await stalledLog();
    const detailLength = 1_000;
    const before = await log.call<number>('heapAfterGc');
    // Four times what may be held.
    const lines = await log.call<number>('log', { lines: Math.ceil((4 * LOG_BUFFER_MAX_BYTES) / detailLength), detailLength });
    expect((await log.call<number>('heapAfterGc')) - before).toBeLessThan(LOG_BUFFER_MAX_BYTES + 2 * MiB);
    const output = await within(log.call<string>('drain'), 15_000, 'the report of dropped lines');
    const report = output.split('\n').find((line) => line.includes('Log lines dropped'))!;
    const written = output.split('\n').filter((line) => line.includes('"msg":"line"')).length;
    expect(JSON.parse(report)).toMatchObject({ level: 40, dropped: lines - written });
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
