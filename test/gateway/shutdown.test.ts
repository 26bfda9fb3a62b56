import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { SHUTDOWN_GRACE_MS } from '../../src/gateway/server.js';
import { holdingUpstream } from '../support/holding-upstream.js';
import { openConnection } from '../support/raw-connection.js';
import { eventually, within } from '../support/within.js';
import { startStack } from '../support/stack.js';

const searchRequest = (q: string) => {
  const body = JSON.stringify({ query: `{ searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount } }` });
  return `POST /graphql HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};

/** A stack whose upstream holds the search for `q` until released, so that shutdown begins while it is in flight. */
async function startHolding(q: string) {
  const upstream = await holdingUpstream(q);
  const stack = await startStack({ upstreamUrl: upstream.url, gateway: { shutdownDrainDelayMs: 0 } });
  upstream.forwardTo(stack.lookup.url);
  return {
    stack,
    upstream,
    /** What the gateway's close() leaves: the lookup service and the proxy. */
    async close() {
      upstream.release();
      await stack.lookup.close();
      await upstream.close();
    },
  };
}

describe('shutdown', () => {
  it('finishes the request in flight, then closes keep-alive connections without waiting for them to time out', async () => {
    const { stack, upstream, close } = await startHolding('Zebra Quantum');
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    try {
      // The connections the agent opened, and why each one it lost went: 'other side closed' is the gateway closing it.
      let opened = 0;
      const lost: string[] = [];
      agent.on('connect', () => (opened += 1));
      agent.on('disconnect', (_origin, _targets, error) => lost.push(error.message));
      const search = (q: string) =>
        request(stack.gateway.graphqlUrl, {
          dispatcher: agent,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `{ searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount } }` }),
        });
      await (await search('warm up')).body.text();
      const inFlight = search('Zebra Quantum');
      // Shutdown begins while the search is in flight: the upstream holds it until the test lets it go.
      await upstream.reached;

      const closed = stack.gateway.close();
      upstream.release();
      const response = await inFlight;
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(await response.body.text())).toEqual({ data: { searchCompanies: { totalCount: 1 } } });
      await closed;
      // The gateway closed each connection, the one kept alive as soon as its answer was written. Left open, it would
      // have held close() until a keep-alive timeout closed it: the agent's own, from the gateway's `Keep-Alive:
      // timeout=5` ('socket idle timeout' below), or the gateway's, which it logs.
      expect(stack.logs.filter((line) => line.includes('Connection closed: idle'))).toEqual([]);
      expect(opened).toBeGreaterThan(0);
      await eventually(() => expect(lost).toEqual(Array<string>(opened).fill('other side closed')));
    } finally {
      await agent.close();
      await close();
    }
  });

  it('answers a request that arrives on a kept-alive connection once shutdown has begun with Connection: close', async () => {
    const { stack, upstream, close } = await startHolding('Zebra Quantum');
    try {
      const { port } = new URL(stack.gateway.url);
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const ended = new Promise((resolve) => socket.on('close', resolve));
      socket.write(searchRequest('Zebra Quantum'));
      await upstream.reached;
      const closed = stack.gateway.close();
      // Sent while the first is still being answered, on a connection shutdown could not close yet.
      socket.write(searchRequest('Quantum Zebra'));
      // The gateway has it: its search, not held, has reached the lookup service while the first is still held.
      await eventually(() => expect(stack.lookup.counters.searchRequests).toBe(1));
      upstream.release();
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
      await close();
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
