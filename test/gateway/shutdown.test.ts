import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SHUTDOWN_GRACE_MS } from '../../src/gateway/server.js';
import { openConnection } from '../support/raw-connection.js';
import { within } from '../support/within.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ lookup: { searchLatencyMs: 300 } });
});
afterAll(() => stack.lookup.close());

const searchRequest = (q: string) => {
  const body = JSON.stringify({ query: `{ searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount } }` });
  return `POST /graphql HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};

describe('shutdown', () => {
  it('finishes the request in flight, then closes keep-alive connections without waiting for them to time out', async () => {
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const search = (q: string) =>
      request(stack.gateway.graphqlUrl, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount } }` }),
      });
    await (await search('warm up')).body.text();
    const inFlight = search('Zebra Quantum');
    // Shutdown begins while the search is in flight: the lookup service has it and takes 300 ms to answer.
    await vi.waitFor(() => expect(stack.lookup.counters.searchesInFlight).toBe(1), { timeout: 5_000, interval: 5 });

    const closingAt = performance.now();
    const closed = stack.gateway.close();
    const response = await inFlight;
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(await response.body.text())).toEqual({ data: { searchCompanies: { totalCount: 1 } } });
    await closed;
    // The search takes 300 ms; an idle keep-alive socket left open would hold close() for seconds more.
    expect(performance.now() - closingAt).toBeLessThan(2_000);
    await agent.close();
  });

  it('answers a request that arrives on a kept-alive connection once shutdown has begun with Connection: close', async () => {
    const own = await startStack({ lookup: { searchLatencyMs: 300 } });
    try {
      const { port } = new URL(own.gateway.url);
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const ended = new Promise((resolve) => socket.on('close', resolve));
      socket.write(searchRequest('Zebra Quantum'));
      await vi.waitFor(() => expect(own.lookup.counters.searchesInFlight).toBe(1), { timeout: 5_000, interval: 5 });
      const closed = own.gateway.close();
      // Sent while the first is still being answered, on a connection shutdown could not close yet.
      socket.write(searchRequest('Quantum Zebra'));
      await ended;
      await closed;
      const heads = received
        .split('HTTP/1.1 ')
        .slice(1)
        .map((answer) => answer.slice(0, answer.indexOf('\r\n\r\n')));
      expect(heads).toHaveLength(2);
      expect(heads.map((head) => head.slice(0, 3))).toEqual(['200', '200']);
      expect(heads[1]).toMatch(/^connection: close$/im);
    } finally {
      await own.lookup.close();
    }
  });

  it('closes at once the connections that have brought no request: silent, or with their headers still coming', async () => {
    const own = await startStack();
    try {
      const silent = await openConnection(own.gateway.url);
      const partial = await openConnection(own.gateway.url);
      await partial.write('GET /health HTTP/1.1\r\nhost: gateway\r\n');
      // Before, shutdown waited its whole grace period for them.
      await within(own.gateway.close(), SHUTDOWN_GRACE_MS / 2, 'shutting down');
      await within(Promise.all([silent.closed, partial.closed]), SHUTDOWN_GRACE_MS / 2, 'closing both connections');
    } finally {
      await own.lookup.close();
    }
  });
});
