import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { JWKS_BACKOFF_BASE_MS, MAX_JWKS_BYTES } from '../../../src/gateway/access/jwks-fetch.js';
import { send } from '../../support/http.js';
import { startStack, type Stack } from '../../support/stack.js';

const ISSUER = 'https://auth.example.com/';
const AUDIENCE = 'company-search';

/** What the JWKS server answers next; it counts the requests it gets. */
let answer: { status: number; body: string } = { status: 500, body: '' };
let fetches = 0;
let server: Server;
let jwksUrl: URL;
let token: string;
let jwk: JWK;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  token = await new SignJWT({ sub: 'a' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime('1h')
    .sign(privateKey);
  server = createServer((_, response) => {
    fetches += 1;
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`);
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

let stack: Stack | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await stack?.close();
  stack = undefined;
});

async function start(): Promise<Stack> {
  fetches = 0;
  stack = await startStack({
    gateway: { jwtIssuer: ISSUER, jwtAudience: AUDIENCE, jwtJwksUrl: jwksUrl, allowAnonymous: false, rateLimitPerMinute: 0 },
  });
  // The clocks alone stand still (and move when the test says): the backoff reads performance.now() (systemClock) and
  // jose reads Date; timers and sockets read neither.
  vi.useFakeTimers({ toFake: ['Date', 'performance'], now: Date.now() });
  return stack;
}

async function status(stack: Stack): Promise<number> {
  const response = await send(stack.gateway.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  return response.status;
}

describe('a JWKS server that fails', () => {
  it.each([
    ['answers 500', { status: 500, body: '' }],
    ['answers HTML', { status: 200, body: '<html>maintenance</html>' }],
    ['answers JSON without keys', { status: 200, body: '{"error":"none"}' }],
  ])('(%s) is asked again only after a backoff, not once per request', async (_name, failure) => {
    answer = failure;
    const stack = await start();
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push(await status(stack));
    expect(statuses).toEqual(Array(20).fill(503));
    expect(fetches).toBe(1);

    answer = { status: 200, body: JSON.stringify({ keys: [jwk] }) };
    vi.advanceTimersByTime(JWKS_BACKOFF_BASE_MS - 1);
    expect(await status(stack)).toBe(503);
    expect(fetches).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await status(stack)).toBe(200);
    expect(fetches).toBe(2);
  });

  it('answering a key set larger than MAX_JWKS_BYTES is refused, not read whole', async () => {
    answer = { status: 200, body: JSON.stringify({ keys: [jwk], padding: 'x'.repeat(MAX_JWKS_BYTES) }) };
    const stack = await start();
    expect(await status(stack)).toBe(503);
    expect(await status(stack)).toBe(503);
    expect(fetches).toBe(1);
  });
});
