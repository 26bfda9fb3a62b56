import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiKeyMatcher, hashApiKey, parseApiKeys } from '../../../src/gateway/access/api-keys.js';
import { clientAddress, networkOf } from '../../../src/gateway/access/client-address.js';
import { RateLimiter } from '../../../src/gateway/limits/rate-limiter.js';
import { send, type HttpAnswer } from '../../support/http.js';
import { manualClock } from '../../support/clock.js';
import { startStack, type Stack } from '../../support/stack.js';

const WEB_KEY = 'web-key-0123456789abcdef0123456789abcdef';
const MOBILE_KEY = 'mobile-key-0123456789abcdef0123456789abcd';
const SECRET = 'shared-secret-0123456789abcdef0123456789';
const ISSUER = 'https://auth.example.com/';
const AUDIENCE = 'company-search';
const QUERY = JSON.stringify({ query: '{ __typename }' });
/** A search: had the refused request run, the lookup service would have counted it. */
const SEARCH = JSON.stringify({ query: '{ searchCompanies(q: "refused before any work", jurisdiction: GB) { totalCount } }' });

function post(stack: Stack, headers: Record<string, string> = {}, body = QUERY): Promise<HttpAnswer> {
  return send(stack.gateway.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

/** What a client is told to do about a bearer token refused for what it says or how it is signed. */
const NEW_TOKEN = ' get a new token from the issuer this gateway trusts';
const INVALID_KEY = "The API key is not valid; send a key the gateway's operators gave you";

function expectRefusal(response: HttpAnswer, status: number, code: string, message: string) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  // The id the answer names is the one its header gives, so a client reporting the refusal names the request.
  expect(JSON.parse(response.text)).toEqual({ errors: [{ message, extensions: { code, requestId: response.headers['x-request-id'] } }] });
}

function hs256(claims: Record<string, unknown>, { secret = SECRET, expiresIn = '5m' as string | number } = {}) {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setIssuer(ISSUER).setAudience(AUDIENCE);
  if (expiresIn !== 0) jwt.setExpirationTime(expiresIn);
  return jwt.sign(new TextEncoder().encode(secret));
}

describe('API keys', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      gateway: {
        apiKeys: [
          { id: 'web', sha256: hashApiKey(WEB_KEY) },
          { id: 'mobile', sha256: hashApiKey(MOBILE_KEY) },
        ],
        allowAnonymous: false,
        rateLimitPerMinute: 0,
      },
    });
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.lookup.counters.reset());

  it('answers a request with a valid key', async () => {
    const response = await post(stack, { 'x-api-key': WEB_KEY });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses a request without a key: 401, UNAUTHENTICATED, WWW-Authenticate, no upstream call', async () => {
    const response = await post(stack, {}, SEARCH);
    expectRefusal(response, 401, 'UNAUTHENTICATED', 'An API key is required in the x-api-key header');
    expect(response.headers['www-authenticate']).toBe('ApiKey realm="company-search", header="x-api-key"');
    expect(stack.lookup.counters.searchRequests + stack.lookup.counters.tokenRequests).toBe(0);
  });

  it('refuses a wrong key, a key differing in one character, and a bearer token it was not set up for', async () => {
    expectRefusal(await post(stack, { 'x-api-key': 'nope' }), 401, 'UNAUTHENTICATED', INVALID_KEY);
    expectRefusal(await post(stack, { 'x-api-key': `${WEB_KEY.slice(0, -1)}0` }), 401, 'UNAUTHENTICATED', INVALID_KEY);
    expectRefusal(
      await post(stack, { authorization: `Bearer ${await hs256({ sub: 'x' })}` }),
      401,
      'UNAUTHENTICATED',
      'This gateway does not accept bearer tokens; send an API key in the x-api-key header instead',
    );
  });

  it('refuses a key together with an Authorization header', async () => {
    expectRefusal(
      await post(stack, { 'x-api-key': WEB_KEY, authorization: 'Bearer abc' }),
      401,
      'UNAUTHENTICATED',
      'Send either an x-api-key header or an Authorization header, not both',
    );
  });

  it('serves /health without a key', async () => {
    expect((await send(stack.gateway.url, { path: '/health' })).status).toBe(200);
  });
});

describe('JWT bearer tokens with a shared secret', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      gateway: {
        jwtIssuer: ISSUER,
        jwtAudience: AUDIENCE,
        jwtSecret: SECRET,
        apiKeys: [{ id: 'web', sha256: hashApiKey(WEB_KEY) }],
        allowAnonymous: false,
        rateLimitPerMinute: 0,
      },
    });
  });
  afterAll(() => stack.close());

  const bearer = async (token: string | Promise<string>) => post(stack, { authorization: `Bearer ${await token}` });
  const invalid = (description: string) =>
    `Bearer realm="company-search", error="invalid_token", error_description="${description.replaceAll('"', '\\"')}"`;

  it('answers a request with a valid token, or with a valid key', async () => {
    expect((await bearer(hs256({ sub: 'user-1' }))).status).toBe(200);
    expect((await post(stack, { 'x-api-key': WEB_KEY })).status).toBe(200);
  });

  it('refuses a request with neither, naming and challenging for both', async () => {
    const response = await post(stack);
    expectRefusal(response, 401, 'UNAUTHENTICATED', 'An API key (x-api-key header) or a bearer token (Authorization header) is required');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="company-search", ApiKey realm="company-search", header="x-api-key"');
  });

  it.each([
    ['expired', hs256({ sub: 'u' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 }), 'The bearer token has expired'],
    ['signed with another secret', hs256({ sub: 'u' }, { secret: 'x'.repeat(40) }), "The bearer token's signature is not valid"],
    ['without a subject', hs256({}), 'The bearer token\'s "sub" claim is missing'],
    ['without an expiry', hs256({ sub: 'u' }, { expiresIn: 0 }), 'The bearer token\'s "exp" claim is missing'],
    [
      'for another audience',
      new SignJWT({ sub: 'u' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(ISSUER)
        .setAudience('other')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(SECRET)),
      'The bearer token\'s "aud" claim is not accepted',
    ],
    [
      'from another issuer',
      new SignJWT({ sub: 'u' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('https://evil.example/')
        .setAudience(AUDIENCE)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(SECRET)),
      'The bearer token\'s "iss" claim is not accepted',
    ],
    [
      'unsigned (alg none)',
      Promise.resolve(
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'u', iss: ISSUER, aud: AUDIENCE, exp: 9e9 })).toString('base64url')}.`,
      ),
      "The bearer token's signature algorithm is not accepted",
    ],
    ['not a JWT', Promise.resolve('abc.def.ghi'), 'The bearer token is not a valid signed JWT'],
  ])('refuses a token %s with 401 and says why', async (_, token, reason) => {
    const response = await bearer(token);
    expectRefusal(response, 401, 'UNAUTHENTICATED', `${reason};${NEW_TOKEN}`);
    expect(response.headers['www-authenticate']).toBe(invalid(reason));
  });

  it('refuses an Authorization header that is not a bearer token', async () => {
    const response = await post(stack, { authorization: 'Basic dXNlcjpwYXNz' });
    expectRefusal(response, 401, 'UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>"');
    expect(response.headers['www-authenticate']).toBe(invalid('The Authorization header must be a bearer token'));
  });
});

describe('JWT bearer tokens checked against a JWKS URL', () => {
  let stack: Stack;
  let jwks: Server;
  let privateKey: CryptoKey;
  let jwksRequests = 0;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    jwks = createServer((_, response) => {
      jwksRequests += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const jwksUrl = new URL(`http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`);
    stack = await startStack({
      gateway: { jwtIssuer: ISSUER, jwtAudience: AUDIENCE, jwtJwksUrl: jwksUrl, allowAnonymous: false, rateLimitPerMinute: 0 },
    });
  });
  afterAll(async () => {
    await stack.close();
    await new Promise((resolve) => jwks.close(resolve));
  });

  const es256 = (sub: string, kid = 'k1') =>
    new SignJWT({ sub })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(privateKey);

  it('accepts a token signed by a key from the JWKS, fetching the set once', async () => {
    expect((await post(stack, { authorization: `Bearer ${await es256('a')}` })).status).toBe(200);
    expect((await post(stack, { authorization: `Bearer ${await es256('b')}` })).status).toBe(200);
    expect(jwksRequests).toBe(1);
  });

  it('refuses an HS256 token made with the public key as secret (algorithm confusion)', async () => {
    const token = await new SignJWT({ sub: 'a' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('x'.repeat(32)));
    expectRefusal(
      await post(stack, { authorization: `Bearer ${token}` }),
      401,
      'UNAUTHENTICATED',
      `The bearer token's signature algorithm is not accepted;${NEW_TOKEN}`,
    );
  });

  it('refuses a token signed by a key the JWKS does not hold', async () => {
    expectRefusal(
      await post(stack, { authorization: `Bearer ${await es256('a', 'k2')}` }),
      401,
      'UNAUTHENTICATED',
      `The bearer token is not signed by a known key;${NEW_TOKEN}`,
    );
  });

  it('refuses anonymous requests unless configured, naming what is required', async () => {
    const response = await post(stack);
    expectRefusal(response, 401, 'UNAUTHENTICATED', 'A bearer token is required in the Authorization header');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="company-search"');
  });

  it('refuses an API key, which it was not set up for', async () => {
    const response = await post(stack, { 'x-api-key': WEB_KEY });
    expectRefusal(
      response,
      401,
      'UNAUTHENTICATED',
      'This gateway does not accept API keys; send a bearer token in the Authorization header instead',
    );
    expect(response.headers['www-authenticate']).toBe('Bearer realm="company-search"');
  });
});

describe('JWT bearer tokens against a JWKS of several keys, or none to be had', () => {
  let keysServer: Server;
  let keysUrl: URL;
  let failing = false;
  let privateKey: CryptoKey;
  const stacks: Stack[] = [];

  beforeAll(async () => {
    const pairs = await Promise.all([generateKeyPair('ES256'), generateKeyPair('ES256')]);
    privateKey = pairs[0].privateKey;
    const keys = await Promise.all(
      pairs.map(async ({ publicKey }, i) => ({ ...(await exportJWK(publicKey)), kid: `k${i + 1}`, alg: 'ES256', use: 'sig' })),
    );
    keysServer = createServer((_, response) => {
      if (failing) response.writeHead(500).end();
      else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => keysServer.listen(0, '127.0.0.1', resolve));
    keysUrl = new URL(`http://127.0.0.1:${(keysServer.address() as AddressInfo).port}/.well-known/jwks.json`);
  });
  afterAll(async () => {
    await Promise.all(stacks.map((stack) => stack.close()));
    await new Promise((resolve) => keysServer.close(resolve));
  });

  const startWith = async (jwksUrl: URL) => {
    const stack = await startStack({
      gateway: { jwtIssuer: ISSUER, jwtAudience: AUDIENCE, jwtJwksUrl: jwksUrl, allowAnonymous: false, rateLimitPerMinute: 0 },
    });
    stacks.push(stack);
    return stack;
  };
  const token = (header: { alg: string; kid?: string }) =>
    new SignJWT({ sub: 'a' }).setProtectedHeader(header).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('5m').sign(privateKey);

  it('refuses a token without "kid" that more than one key could have signed with 401, logging no warning', async () => {
    failing = false;
    const stack = await startWith(keysUrl);
    const response = await post(stack, { authorization: `Bearer ${await token({ alg: 'ES256' })}` });
    const reason = 'The bearer token does not name its key ("kid") and more than one key could have signed it';
    expectRefusal(response, 401, 'UNAUTHENTICATED', `${reason};${NEW_TOKEN}`);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="company-search", error="invalid_token", error_description="${reason.replaceAll('"', '\\"')}"`,
    );
    expect(response.headers['retry-after']).toBeUndefined();
    expect(stack.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 40)).toEqual([]);
    expect((await post(stack, { authorization: `Bearer ${await token({ alg: 'ES256', kid: 'k1' })}` })).status).toBe(200);
  });

  it('answers 503 AUTH_UNAVAILABLE with Retry-After when the JWKS cannot be fetched', async () => {
    failing = true;
    const unreachable = createServer();
    await new Promise<void>((resolve) => unreachable.listen(0, '127.0.0.1', resolve));
    const closedPort = (unreachable.address() as AddressInfo).port;
    await new Promise((resolve) => unreachable.close(resolve));
    for (const jwksUrl of [keysUrl, new URL(`http://127.0.0.1:${closedPort}/jwks.json`)]) {
      const response = await post(await startWith(jwksUrl), { authorization: `Bearer ${await token({ alg: 'ES256', kid: 'k1' })}` });
      expectRefusal(response, 503, 'AUTH_UNAVAILABLE', 'Bearer tokens cannot be checked right now; try again shortly');
      expect(response.headers['retry-after']).toBe('5');
    }
  });
});

describe('per-client rate limits', () => {
  // Each test uses a stack of its own, so that buckets start full.
  let stack: Stack;
  const start = async () => {
    stack = await startStack({
      // The buckets refill only when the test moves the clock on, not while a busy machine runs the test.
      clock: manualClock(),
      gateway: {
        apiKeys: [
          { id: 'web', sha256: hashApiKey(WEB_KEY) },
          { id: 'mobile', sha256: hashApiKey(MOBILE_KEY) },
        ],
        allowAnonymous: true,
        rateLimitPerMinute: 60,
        rateLimitBurst: 3,
      },
    });
  };
  afterAll(() => stack?.close());
  beforeEach(async () => {
    await stack?.close();
    await start();
  });

  it('limits each key on its own, answering 429 RATE_LIMITED with Retry-After and no upstream call', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await post(stack, { 'x-api-key': WEB_KEY })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const response = await post(stack, { 'x-api-key': WEB_KEY });
    expectRefusal(response, 429, 'RATE_LIMITED', 'Too many requests; try again in 1 s');
    expect(response.headers['retry-after']).toBe('1');
    expect((await post(stack, { 'x-api-key': MOBILE_KEY })).status).toBe(200);
    expect((await post(stack)).status).toBe(200);
  });

  it('limits anonymous clients by IP address', async () => {
    for (let i = 0; i < 3; i += 1) expect((await post(stack)).status).toBe(200);
    expectRefusal(await post(stack), 429, 'RATE_LIMITED', 'Too many requests; try again in 1 s');
    expect((await post(stack, { 'x-api-key': WEB_KEY })).status).toBe(200);
  });

  it('counts failed attempts against the address, so keys cannot be guessed at speed', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await post(stack, { 'x-api-key': `guess-${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

describe('rate limits of anonymous clients behind a proxy', () => {
  let stack: Stack;
  beforeEach(async () => {
    await stack?.close();
    stack = await startStack({ gateway: { allowAnonymous: true, rateLimitPerMinute: 1, rateLimitBurst: 2, trustedProxyCount: 1 } });
  });
  afterAll(() => stack?.close());

  const from = async (forwardedFor: string) => (await post(stack, { 'x-forwarded-for': forwardedFor })).status;

  it('counts every IPv6 address of a /64 as one client', async () => {
    expect([await from('2001:db8:1:2::a'), await from('2001:db8:1:2:ffff:ffff:ffff:ffff'), await from('2001:DB8:1:2:0:0:0:c')]).toEqual([
      200, 200, 429,
    ]);
    expect(await from('2001:db8:1:3::a')).toBe(200);
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    expect([await from('::ffff:192.0.2.7'), await from('192.0.2.7'), await from('::ffff:c000:207')]).toEqual([200, 200, 429]);
  });

  it('takes the socket address when the chosen X-Forwarded-For hop is not an IP address', async () => {
    expect([await from('not-an-ip'), await from('192.0.2.8:1234'), await from('unknown')]).toEqual([200, 200, 429]);
    expect(await from('192.0.2.9')).toBe(200);
  });
});

describe('access pieces', () => {
  it('parses GATEWAY_API_KEYS into ids and hashes, naming bad entries without quoting keys', () => {
    const { keys, problems } = parseApiKeys('GATEWAY_API_KEYS', `web:${WEB_KEY}, mobile:${MOBILE_KEY}`);
    expect(problems).toEqual([]);
    expect(keys).toEqual([
      { id: 'web', sha256: hashApiKey(WEB_KEY) },
      { id: 'mobile', sha256: hashApiKey(MOBILE_KEY) },
    ]);
    expect(JSON.stringify(keys)).not.toContain(WEB_KEY);
    const bad = parseApiKeys('K', `nokey,web:short,we b:${WEB_KEY},web:${WEB_KEY},web:${MOBILE_KEY},other:${WEB_KEY}`);
    expect(bad.problems).toEqual([
      'K entry 1 must be id:key: a name for the client (used in logs and rate limits), a colon, then the key, such as web:<the output of openssl rand -hex 32>',
      'K entry 2 (web) has a key shorter than 32 characters',
      "K entry 3 has an id that is not 1 to 64 letters, digits, '_', '.' or '-'",
      'K entry 5 repeats the id web',
      'K entry 6 (other) repeats the key of another entry',
    ]);
    expect(bad.problems.join('\n')).not.toContain(WEB_KEY.slice(8));
  });

  it('matches a key by its hash', () => {
    const matcher = new ApiKeyMatcher([{ id: 'web', sha256: hashApiKey(WEB_KEY) }]);
    expect(matcher.match(WEB_KEY)).toBe('web');
    expect(matcher.match(MOBILE_KEY)).toBeUndefined();
    expect(matcher.match('')).toBeUndefined();
  });

  it('looks a key up without going through the configured keys: a wrong key costs the same with thousands', () => {
    const configured = Array.from({ length: 10_000 }, (_, index) => ({ id: `client-${index}`, sha256: hashApiKey(`key-${index}`) }));
    // Counts the configured keys read, by index or by iteration, once the matcher is made.
    let reads = 0;
    const counted = new Proxy(configured, {
      get(target, property, receiver) {
        if (typeof property === 'string' && /^\d+$/.test(property)) reads += 1;
        return Reflect.get(target, property, receiver);
      },
    });
    const matcher = new ApiKeyMatcher(counted);
    reads = 0;
    for (let guess = 0; guess < 100; guess++) expect(matcher.match(`${WEB_KEY}${guess}`)).toBeUndefined();
    expect(matcher.match('key-9999')).toBe('client-9999');
    expect(reads).toBe(0);
  });

  it('remembers only keys that matched, at most one entry per configured key, whatever clients send', () => {
    const matcher = new ApiKeyMatcher([
      { id: 'web', sha256: hashApiKey(WEB_KEY) },
      { id: 'mobile', sha256: hashApiKey(MOBILE_KEY) },
    ]);
    for (let guess = 0; guess < 100; guess++) expect(matcher.match(`${WEB_KEY.slice(0, -3)}${guess}`)).toBeUndefined();
    expect(matcher.remembered).toBe(0);
    expect([matcher.match(WEB_KEY), matcher.match(WEB_KEY), matcher.match(MOBILE_KEY), matcher.match(WEB_KEY)]).toEqual([
      'web',
      'web',
      'mobile',
      'web',
    ]);
    expect(matcher.match(SECRET)).toBeUndefined();
    expect(matcher.remembered).toBe(2);
  });

  it('refills a token bucket at the configured rate and forgets the least recently seen clients first', () => {
    let now = 0;
    const limiter = new RateLimiter({ perMinute: 60, burst: 2, maxClients: 2 }, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([
      { allowed: true },
      { allowed: true },
      { allowed: false, retryAfterSeconds: 1 },
    ]);
    now = 500;
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 1_000;
    expect(limiter.take('a')).toEqual({ allowed: true });
    expect(limiter.take('b')).toEqual({ allowed: true });
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // b, seen less recently than a, is forgotten, and comes back with a full bucket; a is still remembered.
    limiter.take('c');
    expect(limiter.size).toBe(2);
    expect([limiter.take('b'), limiter.take('b'), limiter.take('b')]).toEqual([
      { allowed: true },
      { allowed: true },
      { allowed: false, retryAfterSeconds: 1 },
    ]);
    const slow = new RateLimiter({ perMinute: 1, burst: 1, maxClients: 10 }, () => 0);
    slow.take('x');
    expect(slow.take('x')).toEqual({ allowed: false, retryAfterSeconds: 60 });
  });

  it('believes X-Forwarded-For only as far as the trusted proxies reach', () => {
    expect(clientAddress('10.0.0.1', '1.1.1.1', 0)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', 'spoofed, 2.2.2.2', 1)).toBe('2.2.2.2');
    expect(clientAddress('10.0.0.1', 'spoofed, 2.2.2.2, 10.0.0.2', 2)).toBe('2.2.2.2');
    expect(clientAddress('10.0.0.1', '2.2.2.2', 3)).toBe('2.2.2.2');
    expect(clientAddress('10.0.0.1', undefined, 1)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', ' 2001:db8::1 ', 1)).toBe('2001:db8::1');
    expect(clientAddress('10.0.0.1', 'not-an-ip', 1)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', '2.2.2.2:443', 1)).toBe('10.0.0.1');
    expect(clientAddress(undefined, 'unknown', 1)).toBe('unknown');
  });

  it('counts an IPv6 address by its /64, an IPv4-mapped one as IPv4, and IPv4 as itself', () => {
    expect(networkOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:DB8:0001:0002:0:0:0:0001')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:db8::1.2.3.4')).toBe('2001:db8::/64');
    expect(networkOf('fe80::1%eth0')).toBe('fe80::/64');
    expect(networkOf('::1')).toBe('::/64');
    expect(networkOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(networkOf('::ffff:c000:207')).toBe('192.0.2.7');
    expect(networkOf('192.0.2.7')).toBe('192.0.2.7');
    expect(networkOf('unknown')).toBe('unknown');
  });
});
