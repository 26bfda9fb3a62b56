import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/gateway/access/api-keys.js';
import { finalResponse, openConnection, receiveResponse, type RawConnection } from '../../support/raw-connection.js';
import { SAFETY_MS, within } from '../../support/within.js';
import { startStack, type Stack, type StackOptions } from '../../support/stack.js';
import type { UploadOutcome } from '../../support/upload-client.js';

const UPLOAD_CLIENT = fileURLToPath(new URL('../../support/upload-client.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const KEY = 'web-key-0123456789abcdef0123456789abcdef';
const MAX_BODY_BYTES = 4_096;
const QUERY = JSON.stringify({ query: '{ __typename }' });

const stacks: Stack[] = [];
async function gateway(settings: StackOptions['gateway'] = {}): Promise<Stack> {
  const stack = await startStack({
    gateway: { maxBodyBytes: MAX_BODY_BYTES, apiKeys: [{ id: 'web', sha256: hashApiKey(KEY) }], rateLimitPerMinute: 0, ...settings },
  });
  stacks.push(stack);
  return stack;
}
afterAll(() => Promise.all(stacks.map((stack) => stack.close())));

function head(contentLength: number, headers: string[] = []): string {
  return [
    'POST /graphql HTTP/1.1',
    'host: gateway',
    'content-type: application/json',
    `content-length: ${contentLength}`,
    `x-api-key: ${KEY}`,
    ...headers,
    '',
    '',
  ].join('\r\n');
}

/** Writes `total` bytes of body in chunks of 64 KiB, each once the last is taken; the first error stops it. */
async function writeBody(connection: RawConnection, total: number): Promise<Error | undefined> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  for (let written = 0; written < total; written += chunk.length) {
    const error = await connection.write(chunk.subarray(0, Math.min(chunk.length, total - written)));
    if (error) return error;
  }
  return undefined;
}

describe('a refusal sent while the body is still coming', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await gateway();
  });

  it('reaches undici clients uploading 5 MB from another process: 413 PAYLOAD_TOO_LARGE, never EPIPE', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', UPLOAD_CLIENT, stack.gateway.graphqlUrl, String(5 * 1024 * 1024), '4'],
      { cwd: REPO_ROOT, timeout: 60_000 },
    );
    const outcomes = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as UploadOutcome);
    expect(outcomes).toHaveLength(12);
    expect(outcomes.filter((outcome) => outcome.status !== 413 || outcome.code !== 'PAYLOAD_TOO_LARGE')).toEqual([]);
  });

  it('reads the rest of the body, then closes the connection cleanly, without a reset', async () => {
    const connection = await openConnection(stack.gateway.url);
    await connection.write(`${head(2 * 1024 * 1024)}{"query":`);
    const refusal = await receiveResponse(connection);
    expect(refusal).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE', headers: { connection: 'close' } });
    expect(await writeBody(connection, 2 * 1024 * 1024 - 9)).toBeUndefined();
    const closed = await within(connection.closed, SAFETY_MS, 'closing the connection');
    expect(closed.error).toBeUndefined();
  });

  it('is the only answer, even when the request timeout strikes while the body is read', async () => {
    const timing = await gateway({ headersTimeoutMs: 200, requestTimeoutMs: 200, refusalLingerMs: 60_000 });
    const connection = await openConnection(timing.gateway.url);
    await connection.write(`${head(1_000_000)}{"query":`);
    expect(await receiveResponse(connection)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    await within(connection.closed, SAFETY_MS, 'closing the connection at the request timeout');
    expect(connection.received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413']);
  });
});

describe('the reading after a refusal is bounded', () => {
  it('by REFUSAL_LINGER_BYTES: past them the connection is closed', async () => {
    const stack = await gateway({ refusalLingerBytes: 256 * 1024, refusalLingerMs: 60_000 });
    const connection = await openConnection(stack.gateway.url);
    await connection.write(head(64 * 1024 * 1024));
    expect(await receiveResponse(connection)).toMatchObject({ status: 413 });
    // Far more than the bound, but far less than the 64 MiB announced: only the bound can end it.
    void writeBody(connection, 8 * 1024 * 1024);
    await within(connection.closed, SAFETY_MS, 'closing the connection past REFUSAL_LINGER_BYTES');
  });

  it('by REFUSAL_LINGER_MS: a client that sends nothing more is closed then', async () => {
    const stack = await gateway({ refusalLingerMs: 200 });
    const connection = await openConnection(stack.gateway.url);
    await connection.write(head(1_000_000));
    expect(await receiveResponse(connection)).toMatchObject({ status: 413 });
    const closed = await within(connection.closed, SAFETY_MS, 'closing the connection at REFUSAL_LINGER_MS');
    expect(closed.afterMs).toBeGreaterThanOrEqual(200);
  });
});

describe('Expect: 100-continue', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await gateway({ allowAnonymous: false, refusalLingerMs: 100 });
  });

  it('gets the refusal and never "100 Continue" when the request will be refused: no credential, or too large', async () => {
    for (const [headers, status, code] of [
      [head(QUERY.length, ['expect: 100-continue']).replace(`x-api-key: ${KEY}\r\n`, ''), 401, 'UNAUTHENTICATED'],
      [head(1_000_000, ['expect: 100-continue']), 413, 'PAYLOAD_TOO_LARGE'],
    ] as const) {
      const connection = await openConnection(stack.gateway.url);
      await connection.write(headers);
      expect(await receiveResponse(connection)).toMatchObject({ status, code, headers: { connection: 'close' } });
      await within(connection.closed, SAFETY_MS, 'closing the connection');
      expect(connection.received).not.toContain('100 Continue');
    }
  });

  it('gets "100 Continue" once every check has passed, then the answer', async () => {
    const connection = await openConnection(stack.gateway.url);
    await connection.write(head(QUERY.length, ['expect: 100-continue']));
    await within(
      connection.receive((received) => received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')),
      SAFETY_MS,
      'receiving 100 Continue',
    );
    expect(finalResponse(connection.received)).toBeUndefined();
    await connection.write(QUERY);
    const answer = await receiveResponse(connection);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ data: { __typename: 'Query' } });
    connection.destroy();
  });
});
