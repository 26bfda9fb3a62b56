import { describe, expect, it } from 'vitest';
import { json, send } from '../../support/http.js';
import { openConnection } from '../../support/raw-connection.js';
import { startStack } from '../../support/stack.js';

const QUERY = JSON.stringify({ query: '{ searchCompanies(q: "Zebra Quantum", jurisdiction: "GB") { totalCount } }' });

describe('/ready', () => {
  it('answers 200 with the upstream token and circuit, while /health stays liveness', async () => {
    const stack = await startStack({ tokenAtStart: true });
    try {
      await stack.gateway.tokenAtStart;
      const ready = await stack.get('/ready');
      expect(ready.status).toBe(200);
      expect(ready.headers['cache-control']).toBe('no-store');
      expect(json(ready)).toEqual({
        status: 'ready',
        upstream: { token: 'valid', tokenExpiresInSeconds: expect.any(Number), circuit: 'closed' },
      });
      expect((await stack.get('/health')).status).toBe(200);
      // The token was asked for at start, so the first search needs none.
      await stack.post(JSON.parse(QUERY));
      expect(stack.lookup.counters.tokenRequests).toBe(1);
    } finally {
      await stack.close();
    }
  });

  it('answers 503 from the moment shutdown begins, while connections are still accepted and a request in flight finishes', async () => {
    let endDrain!: () => void;
    let drainBegan!: (ms: number) => void;
    const draining = new Promise<number>((resolve) => (drainBegan = resolve));
    const stack = await startStack({
      gateway: { shutdownDrainDelayMs: 30_000 },
      drainWait: (ms) => {
        drainBegan(ms);
        return new Promise((resolve) => (endDrain = resolve));
      },
    });
    // A request in flight: its headers are in and checked (the gateway says 100 Continue), its body not yet sent.
    const inFlight = await openConnection(stack.gateway.url);
    await inFlight.write(
      `POST /graphql HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${Buffer.byteLength(QUERY)}\r\n\r\n`,
    );
    await inFlight.receive((received) => received.includes('100 Continue'));

    const closed = stack.gateway.close();
    expect(await draining).toBe(30_000);
    const ready = await stack.get('/ready');
    expect(ready.status).toBe(503);
    expect(json(ready)).toMatchObject({ status: 'draining' });
    // Still serving, on a new connection, until the drain delay ends.
    expect((await stack.get('/health')).status).toBe(200);
    expect((await stack.post(JSON.parse(QUERY))).status).toBe(200);

    endDrain();
    await inFlight.write(QUERY);
    const answer = await inFlight.receive((received) => received.includes('"totalCount"'));
    expect(answer).toMatch(/HTTP\/1\.1 200 OK/);
    expect(answer).toContain('{"data":{"searchCompanies":{"totalCount":1}}}');
    await closed;
    await expect(send(stack.gateway.url, { path: '/ready' })).rejects.toThrow(/ECONNREFUSED/);
    await stack.lookup.close();
  });
});
