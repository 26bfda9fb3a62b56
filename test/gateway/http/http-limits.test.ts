import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/gateway/access/api-keys.js';
import { CORS_ALLOWED_HEADERS, createCorsPolicy } from '../../../src/gateway/http/cors.js';
import { messagesOf, send } from '../../support/http.js';
import { manualClock } from '../../support/clock.js';
import { openConnection } from '../../support/raw-connection.js';
import { startStack, type Stack } from '../../support/stack.js';
import { expectNoUpstreamCall } from '../../support/upstream-calls.js';
import { eventually } from '../../support/within.js';
import { refusalBody } from '../../support/refusal.js';

const APP = 'https://app.example.com';
const QUERY = JSON.stringify({ query: '{ __typename }' });
/** A search: had a refused request run, the lookup service would have counted it. */
const SEARCH = JSON.stringify({ query: '{ searchCompanies(q: "refused before any work", jurisdiction: GB) { totalCount } }' });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateway: { maxBodyBytes: 2_048, corsAllowedOrigins: [APP], rateLimitPerMinute: 0 } });
});
afterAll(() => stack.close());
beforeEach(() => stack.lookup.counters.reset());

const post = (headers: Record<string, string>, body: string = QUERY) =>
  send(stack.gateway.graphqlUrl, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body });

/**
 * Sends the head of a POST and the first chunk of a chunked body that never
 * ends, and resolves once the server closes the connection: with everything
 * received, and how it closed (undefined for a clean close, else the socket
 * error's code). No timer: a server that kept the connection open would leave
 * this pending, and the test would fail at its timeout however slow the machine.
 */
async function postWithoutEnd(baseUrl: string, headers: string[]): Promise<{ answer: string; closeError: string | undefined }> {
  const { hostname } = new URL(baseUrl);
  const connection = await openConnection(baseUrl);
  await connection.write(
    `${['POST /graphql HTTP/1.1', `host: ${hostname}`, 'transfer-encoding: chunked', ...headers, '', ''].join('\r\n')}5\r\n{"que\r\n`,
  );
  const { error } = await connection.closed;
  return { answer: connection.received, closeError: error?.code };
}

/** The log lines written after the first `from`, once one matches `until`. */
async function logLinesUntil(from: number, until: RegExp): Promise<{ level: number; msg: string }[]> {
  await eventually(() => expect(stack.logs.slice(from).filter((line) => until.test(line))).not.toEqual([]), 20);
  return stack.logs.slice(from).map((line) => JSON.parse(line) as { level: number; msg: string });
}

describe('request body size', () => {
  const big = JSON.stringify({
    query: `{ searchCompanies(q: "refused before any work", jurisdiction: GB) { totalCount } } # ${'x'.repeat(3_000)}`,
  });

  it('refuses a body whose Content-Length is over MAX_BODY_BYTES with 413, before reading it', async () => {
    const response = await post({}, big);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.text)).toEqual(
      refusalBody('PAYLOAD_TOO_LARGE', 'The request body is larger than 2048 bytes; send a smaller one'),
    );
    expectNoUpstreamCall(stack);
  });

  it('refuses a chunked body once it grows over MAX_BODY_BYTES', async () => {
    async function* chunks() {
      for (let i = 0; i < 4; i += 1) yield Buffer.from(big.slice(i * 1_000, (i + 1) * 1_000));
    }
    const response = await send(stack.gateway.graphqlUrl, { method: 'POST', headers: JSON_HEADERS, body: Readable.from(chunks()) });
    expect(response.status).toBe(413);
    expect(messagesOf(response.text)).toEqual(['The request body is larger than 2048 bytes; send a smaller one']);
  });

  it('takes a client that goes away mid-body as gone: a debug line, no error, no answer, and keeps serving', async () => {
    const { hostname, port } = new URL(stack.gateway.url);
    const from = stack.logs.length;
    const socket = connect(Number(port), hostname);
    // Once the head and the start of the body are handed to the network, the close follows them: the gateway reads
    // both, whenever it gets to them, and then the end of a body that is 990 bytes short.
    await new Promise((resolve) =>
      socket.write(
        `POST /graphql HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"query":`,
        resolve,
      ),
    );
    socket.destroy();
    const lines = await logLinesUntil(from, /went away|Request handling failed/);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ level: 20, msg: 'Client went away before sending its whole request' }));
    expect((await post({})).status).toBe(200);
  });

  it('accepts a body of exactly MAX_BODY_BYTES, and keeps serving after refusals', async () => {
    const padded = JSON.stringify({ query: '{ __typename }', extensions: { pad: '' } });
    const body = padded.replace('"pad":""', `"pad":"${'p'.repeat(2_048 - padded.length)}"`);
    expect(Buffer.byteLength(body)).toBe(2_048);
    const response = await post({}, body);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('batching', () => {
  it('is off by default: an array of operations is refused with 400', async () => {
    const response = await post({}, JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]));
    expect(response.status).toBe(400);
    expect(messagesOf(response.text)).toEqual(['Batching is not supported.']);
  });

  it('when configured, runs up to BATCHING_LIMIT operations and refuses more', async () => {
    const batching = await startStack({ gateway: { batchingLimit: 2, rateLimitPerMinute: 0 } });
    try {
      const two = await batching.post([{ query: '{ a: __typename }' }, { query: '{ b: __typename }' }]);
      expect(two.status).toBe(200);
      expect(JSON.parse(two.text)).toEqual([{ data: { a: 'Query' } }, { data: { b: 'Query' } }]);
      const three = await batching.post([{ query: '{ __typename }' }, { query: '{ __typename }' }, { query: '{ __typename }' }]);
      expect(three.status).toBe(413);
      expect(messagesOf(three.text)).toEqual(['Batching is limited to 2 operations per request.']);
    } finally {
      await batching.close();
    }
  });
});

describe('batching and the rate limit', () => {
  it('takes one rate-limit token per operation of a batch, and refuses a batch larger than RATE_LIMIT_BURST', async () => {
    // The bucket refills only when the test moves the clock on, not while a busy machine runs the test.
    const limited = await startStack({ clock: manualClock(), gateway: { batchingLimit: 4, rateLimitPerMinute: 60, rateLimitBurst: 3 } });
    const batch = (size: number) => Array.from({ length: size }, () => ({ query: '{ __typename }' }));
    try {
      const tooMany = await limited.post(batch(4));
      expect(tooMany.status).toBe(413);
      expect(JSON.parse(tooMany.text)).toEqual(
        refusalBody(
          'PAYLOAD_TOO_LARGE',
          'A batch may hold at most 3 operations here: each counts against the rate limit, and RATE_LIMIT_BURST is 3; send fewer operations per batch',
        ),
      );
      const two = await limited.post(batch(2));
      expect(two.status).toBe(200);
      expect(JSON.parse(two.text)).toEqual([{ data: { __typename: 'Query' } }, { data: { __typename: 'Query' } }]);
      const after = await limited.post({ query: '{ __typename }' });
      expect(after.status).toBe(429);
      expect(messagesOf(after.text)).toEqual(['Too many requests; try again in 1 s']);
    } finally {
      await limited.close();
    }
  });
});

describe('refusals before the body is read', () => {
  it('close the connection rather than read a body nobody wants: 401, 403, 415 and 429', async () => {
    const KEY = 'web-key-0123456789abcdef0123456789abcdef';
    const guarded = await startStack({
      gateway: {
        apiKeys: [{ id: 'web', sha256: hashApiKey(KEY) }],
        allowAnonymous: false,
        rateLimitPerMinute: 1,
        rateLimitBurst: 1,
        // A real socket timer, set small: the body that never ends is read only this long before the gateway closes
        // the connection. postWithoutEnd waits for that close however long it takes; it sets no timer of its own.
        refusalLingerMs: 100,
      },
    });
    try {
      const json = 'content-type: application/json';
      const cases: [string, string[]][] = [
        ['403', [json, 'origin: https://evil.example', 'sec-fetch-site: cross-site', 'sec-fetch-mode: cors']],
        ['415', ['content-type: text/xml']],
        // Takes the address's one token: failed attempts count against it.
        ['401', [json]],
        ['429', [json]],
      ];
      const outcomes = [];
      for (const [, headers] of cases) {
        const { answer, closeError } = await postWithoutEnd(guarded.gateway.url, headers);
        outcomes.push({ status: answer.slice(9, 12), connection: /^connection: (.*)$/im.exec(answer)?.[1], closeError });
      }
      // Closed by the server, cleanly (a FIN, not a reset that could have lost the answer).
      expect(outcomes).toEqual(cases.map(([status]) => ({ status, connection: 'close', closeError: undefined })));
    } finally {
      await guarded.close();
    }
  });
});

describe('CSRF prevention', () => {
  it('refuses a cross-site browser request from an origin not in CORS_ALLOWED_ORIGINS', async () => {
    const response = await post({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }, SEARCH);
    expect(response.status).toBe(403);
    expect(JSON.parse(response.text)).toEqual(
      refusalBody(
        'CROSS_SITE_REQUEST_REFUSED',
        "Cross-site requests from https://evil.example are refused: it is not in CORS_ALLOWED_ORIGINS; call from an allowed origin, or ask the gateway's operators to add it",
      ),
    );
    expectNoUpstreamCall(stack);
  });

  it('refuses a cross-site GET an <img> or <script> could make, but lets a link to GraphiQL open', async () => {
    const query = encodeURIComponent('{ searchCompanies(q: "holdings", jurisdiction: "GB") { totalCount } }');
    const embedded = await send(stack.gateway.url, {
      path: `/graphql?query=${query}`,
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
    });
    expect(embedded.status).toBe(403);
    expect(messagesOf(embedded.text)).toEqual(['Cross-site requests are refused unless they come from an origin in CORS_ALLOWED_ORIGINS']);
    expectNoUpstreamCall(stack);
    const navigation = await send(stack.gateway.graphqlUrl, {
      headers: { accept: 'text/html', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
    });
    expect(navigation.status).toBe(200);
  });

  it('refuses a form POST from a browser that sends no fetch metadata, unless it carries a CSRF header', async () => {
    const form = `query=${encodeURIComponent('{ __typename }')}`;
    const refused = await post({ 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, form);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toEqual(
      refusalBody(
        'CROSS_SITE_REQUEST_REFUSED',
        'A POST with content type application/x-www-form-urlencoded needs one of the headers x-graphql-yoga-csrf, apollo-require-preflight (CSRF prevention); send application/json instead',
      ),
    );
    const allowed = await post({ 'content-type': 'application/x-www-form-urlencoded', 'x-graphql-yoga-csrf': '1' }, form);
    expect(allowed.status).toBe(200);
  });

  it("tells a command-line client that posts JSON under a form's type (curl -d) to say it is JSON, rather than call it an attack", async () => {
    const curl = await post({ 'content-type': 'application/x-www-form-urlencoded', accept: '*/*', 'user-agent': 'curl/8.5.0' }, SEARCH);
    expect(curl.status).toBe(415);
    expect(JSON.parse(curl.text)).toEqual(
      refusalBody(
        'UNSUPPORTED_MEDIA_TYPE',
        "Send the request as application/json, not application/x-www-form-urlencoded: add the header Content-Type: application/json (curl -d sends a form's type unless told otherwise); a form or text body is read only with one of the headers x-graphql-yoga-csrf, apollo-require-preflight",
      ),
    );
    expectNoUpstreamCall(stack);
  });

  it('lets same-origin browser requests and allowed cross-origin ones through', async () => {
    expect((await post({ 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await post({ origin: APP, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' })).status).toBe(200);
  });
});

describe('CORS', () => {
  it('answers a preflight from an allowed origin with what it may send', async () => {
    const response = await send(stack.gateway.graphqlUrl, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-api-key' },
    });
    expect(response.status).toBe(204);
    expect(response.headers).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': CORS_ALLOWED_HEADERS,
      'access-control-max-age': '600',
      vary: 'Origin',
    });
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('refuses a preflight from any other origin, with no CORS headers', async () => {
    const response = await send(stack.gateway.graphqlUrl, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(403);
    expect(messagesOf(response.text)).toEqual([
      "Origin https://evil.example is not allowed: it is not in CORS_ALLOWED_ORIGINS; call from an allowed origin, or ask the gateway's operators to add it",
    ]);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets an allowed origin read answers, refusals included, and no other origin', async () => {
    const allowed = await post({ origin: APP });
    expect(allowed.headers['access-control-allow-origin']).toBe(APP);
    expect(allowed.headers['access-control-expose-headers']).toBe('retry-after, www-authenticate, x-request-id');
    const refused = await post({ origin: APP }, JSON.stringify({ query: `{ __typename } # ${'x'.repeat(3_000)}` }));
    expect(refused.status).toBe(413);
    expect(refused.headers['access-control-allow-origin']).toBe(APP);
    const other = await post({ origin: 'https://evil.example' });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers.vary).toBe('Origin');
  });

  it('with *, lets every origin read answers, the same for all, so without Vary', () => {
    const any = createCorsPolicy(['*']);
    const readable = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'retry-after, www-authenticate, x-request-id' };
    expect(any.headers('https://anywhere.example')).toEqual(readable);
    expect(any.headers(undefined)).toEqual({});
    expect(any.preflightHeaders('https://anywhere.example')).toEqual({
      ...readable,
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': CORS_ALLOWED_HEADERS,
      'access-control-max-age': '600',
    });
  });

  it('sends no CORS headers at all when no origin is configured', async () => {
    const plain = await startStack({ gateway: { rateLimitPerMinute: 0 } });
    try {
      const response = await send(plain.gateway.graphqlUrl, { method: 'POST', headers: { ...JSON_HEADERS, origin: APP }, body: QUERY });
      expect(response.status).toBe(200);
      expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
