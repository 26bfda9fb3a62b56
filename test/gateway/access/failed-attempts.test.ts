import { Client } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/gateway/access/api-keys.js';
import { manualClock } from '../../support/clock.js';
import { startStack, type Stack } from '../../support/stack.js';

/**
 * Wrong keys from a client that writes X-Forwarded-For itself, as one that
 * reaches the gateway past the proxy it trusts can: each guess names another
 * address, and still counts against the peer it comes from.
 */

const KEY = 'web-key-0123456789abcdef0123456789abcdef';
const BURST = 3;
const GUESSES = 8;

let stack: Stack;
const clients: Client[] = [];
beforeEach(async () => {
  stack = await startStack({
    // The buckets refill only when a test moves the clock on, never while a busy machine runs it.
    clock: manualClock(),
    gateway: {
      apiKeys: [{ id: 'web', sha256: hashApiKey(KEY) }],
      allowAnonymous: true,
      rateLimitPerMinute: 60,
      rateLimitBurst: BURST,
      trustedProxyCount: 1,
    },
  });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await stack.close();
});

/** One HTTP/1.1 connection (an undici Client keeps one), from `localAddress`; `connections` counts those it opened. */
function connectionFrom(localAddress = '127.0.0.1') {
  const client = new Client(new URL(stack.gateway.graphqlUrl).origin, { localAddress });
  clients.push(client);
  let connections = 0;
  client.on('connect', () => (connections += 1));
  return {
    get connections() {
      return connections;
    },
    /**
     * GETs `{ __typename }` with `headers`, reading the whole answer: its status. A GET, with no body: a refusal
     * before a POST's body has been read closes the connection.
     */
    async status(headers: Record<string, string>): Promise<number> {
      const answer = await client.request({
        method: 'GET',
        path: `${new URL(stack.gateway.graphqlUrl).pathname}?query=${encodeURIComponent('{ __typename }')}`,
        headers: { accept: 'application/json', ...headers },
      });
      await answer.body.arrayBuffer();
      return answer.statusCode;
    },
  };
}

/** A wrong key, and a forwarded address of its own: 192.0.2.1, 192.0.2.2… */
const guess = (index: number) => ({
  'x-api-key': `guess-${index}-0123456789abcdef0123456789abcdef`,
  'x-forwarded-for': `192.0.2.${index + 1}`,
});
const REFUSED = [...Array<number>(BURST).fill(401), ...Array<number>(GUESSES - BURST).fill(429)];

describe('failed attempts with X-Forwarded-For rotated', () => {
  it('answers 429 once a burst of wrong keys has come on one keep-alive connection, each naming another address', async () => {
    const connection = connectionFrom();
    const statuses: number[] = [];
    for (let index = 0; index < GUESSES; index++) statuses.push(await connection.status(guess(index)));
    expect(statuses).toEqual(REFUSED);
    expect(connection.connections).toBe(1);
    // Only failures are counted against the peer: a valid key, and an anonymous client at a forwarded address, pass.
    expect(await connection.status({ 'x-api-key': KEY, 'x-forwarded-for': '198.51.100.1' })).toBe(200);
    expect(await connection.status({ 'x-forwarded-for': '198.51.100.2' })).toBe(200);
  });

  it('answers 429 once a burst of wrong keys has come from one peer address, on a new connection each', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < GUESSES; index++) statuses.push(await connectionFrom().status(guess(index)));
    expect(statuses).toEqual(REFUSED);
    // Another peer's guesses are its own: they start with the whole burst.
    expect(await connectionFrom('127.0.0.2').status(guess(GUESSES))).toBe(401);
  });

  it('counts failures of one forwarded address from several peers against that address, as before', async () => {
    const statuses: number[] = [];
    const sameAddress = (index: number) => ({ ...guess(index), 'x-forwarded-for': '192.0.2.200' });
    for (let index = 0; index < GUESSES; index++) statuses.push(await connectionFrom(`127.0.0.${index + 2}`).status(sameAddress(index)));
    expect(statuses).toEqual(REFUSED);
  });
});
