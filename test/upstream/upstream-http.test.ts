import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamTimeoutError } from '../../src/errors/upstream-errors.js';
import { startLookupService, type LookupService } from '../../src/lookup-service/index.js';
import { UpstreamHttp } from '../../src/upstream/upstream-http.js';
import { holdingUpstream } from '../support/holding-upstream.js';
import { startStack, type Stack } from '../support/stack.js';

const quiet = { debug: () => {}, info: () => {}, warn: () => {} };

let lookup: LookupService | undefined;
let http: UpstreamHttp | undefined;
afterEach(async () => {
  await http?.close();
  await lookup?.close();
  http = lookup = undefined;
});

describe('UpstreamHttp', () => {
  it('answers UPSTREAM_TIMEOUT at the deadline to a call still waiting for a connection, while the call ahead of it goes on', async () => {
    lookup = await startLookupService();
    // The call ahead is held on the way until the test lets it go: the pool's one connection stays busy meanwhile.
    const holding = await holdingUpstream('harbour');
    holding.forwardTo(lookup.url);
    try {
      // One connection and room for two calls: the second waits in the pool for the first to finish.
      http = new UpstreamHttp({
        baseUrl: new URL(holding.url),
        connections: 1,
        connectTimeoutMs: 1_000,
        headersTimeoutMs: 60_000,
        bodyTimeoutMs: 60_000,
        maxResponseBytes: 1_000_000,
        maxInFlight: 2,
        breaker: { failureThreshold: 100, cooldownMs: 1_000 },
        maxRetryAfterMs: 60_000,
        maxCallsPerMinute: undefined,
        log: quiet,
      });
      const search = { method: 'GET', endpoint: '/v1/company/search', query: { q: 'harbour', jurisdiction: 'GB' } } as const;
      // No deadline: the call ahead ends when it is released.
      const ahead = http.request(search, Number.POSITIVE_INFINITY, (response) => response);
      await holding.reached;
      // A deadline already past: the call is abandoned in the pool's queue, its connection never free until the release.
      await expect(http.request(search, 0, (response) => response)).rejects.toBeInstanceOf(UpstreamTimeoutError);
      holding.release();
      // No token was sent, so the lookup service answers 401: what matters is that the call ahead was answered at all.
      expect((await ahead).status).toBe(401);
    } finally {
      await holding.close();
    }
  });
});

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

/**
 * Found by the adversarial review of issues 12 and 16: an upstream answer that
 * is not HTTP undici can read (a garbled status line, headers over its limit,
 * a bad chunk) reached clients as INTERNAL_SERVER_ERROR ("tell the gateway's
 * operators"), not as an upstream failure, and so was never answered from a
 * stale window either.
 */
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
