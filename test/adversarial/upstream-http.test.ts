/**
 * Found by the adversarial review of issues 12 and 16: an upstream answer that
 * is not HTTP undici can read (a garbled status line, headers over its limit,
 * a bad chunk) reached clients as INTERNAL_SERVER_ERROR ("tell the gateway's
 * operators"), not as an upstream failure, and so was never answered from a
 * stale window either.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

const TOKEN = JSON.stringify({ access_token: 'token', token_type: 'Bearer', expires_in: 3600 });

/** Raw bytes for a search answer the upstream garbles. */
const GARBLED = {
  'a status line that is not HTTP': 'HTTTP/9 xyz\r\n\r\n',
  'headers over the limit': `HTTP/1.1 200 OK\r\nx-padding: ${'a'.repeat(70_000)}\r\ncontent-length: 2\r\n\r\n{}`,
  'a chunk size that is not hexadecimal': 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
};

/** An upstream that issues tokens properly and answers every search with `searchAnswer`, as raw bytes. */
async function garblingUpstream(searchAnswer: string): Promise<{ url: string; server: Server }> {
  const server = createServer((socket: Socket) => {
    let received = '';
    socket.on('error', () => {});
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      if (!received.includes('\r\n\r\n')) return;
      const isTokenRequest = received.startsWith('POST');
      received = '';
      if (isTokenRequest) {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${TOKEN.length}\r\n\r\n${TOKEN}`);
      } else {
        socket.end(searchAnswer);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let stack: Stack | undefined;
let upstream: Server | undefined;
afterEach(async () => {
  await stack?.close();
  await new Promise((resolve) => upstream?.close(resolve) ?? resolve(undefined));
  stack = undefined;
  upstream = undefined;
});

describe('an upstream answer that is not readable HTTP', () => {
  it.each(Object.entries(GARBLED))('(%s) is UPSTREAM_BAD_RESPONSE, not an internal error', async (_name, answer) => {
    const garbling = await garblingUpstream(answer);
    upstream = garbling.server;
    stack = await startStack({ upstreamUrl: garbling.url, gateway: { upstreamRetries: 0, rateLimitPerMinute: 0 } });
    const { text } = await stack.post({ query: '{ searchCompanies(q: "holdings", jurisdiction: "GB") { totalCount } }' });
    const body = JSON.parse(text) as { errors?: { message: string; extensions?: { code?: string } }[] };
    expect(body.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_BAD_RESPONSE']);
    expect(body.errors?.[0]?.message).toBe('The company lookup service sent an answer the gateway cannot read; try again later.');
  });
});
