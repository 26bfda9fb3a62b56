/**
 * Found by the adversarial review of issues 12 and 16: one request to /health
 * with `Host: x:99999999` stopped the gateway (an unhandled rejection: the URL
 * Yoga builds from the Host header does not parse), and the same Host on
 * /graphql got a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../../support/raw-connection.js';
import { startStack, type Stack } from '../../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
});
afterAll(() => stack.close());

function get(target: string, host: string | undefined, { version = '1.1', extra = '' } = {}) {
  const hostLine = host === undefined ? '' : `host: ${host}\r\n`;
  return exchange(
    stack.gateway.url,
    `GET ${target} HTTP/${version}\r\n${hostLine}${extra}accept: application/json\r\nconnection: close\r\n\r\n`,
  );
}

const QUERY = `/graphql?query=${encodeURIComponent('{ __typename }')}`;

describe('a Host header that is not a valid authority', () => {
  it.each(['x:99999999', 'a b', '[::1', 'a/b', 'x?y', 'x#y', 'user@x', 'a\\b'])(
    '(%s) gets 400 BAD_REQUEST, on /health and on /graphql, and the gateway keeps serving',
    async (host) => {
      for (const target of ['/health', QUERY]) {
        const response = await get(target, host);
        expect(response, target).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
        expect(JSON.parse(response.body).errors[0].message).toMatch(/Host header/);
      }
      expect((await stack.get('/health')).status).toBe(200);
    },
  );

  it('is not needed: names, addresses and ports of every form are served', async () => {
    for (const host of ['gateway', 'gateway.example:4000', '127.0.0.1:8080', '[::1]:80', 'EXAMPLE.com', 'xn--bcher-kva.example']) {
      const response = await get(QUERY, host);
      expect(response.status, host).toBe(200);
      expect(JSON.parse(response.body), host).toEqual({ data: { __typename: 'Query' } });
    }
  });
});

describe('what Node answers by itself, with no code, unless the gateway answers first', () => {
  it('refuses an HTTP/1.1 request without Host with a coded 400 naming the header, and serves HTTP/1.0 without one', async () => {
    for (const target of ['/health', QUERY]) {
      const response = await get(target, undefined);
      expect(response, target).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
      expect(JSON.parse(response.body).errors[0].message).toMatch(/Host header is missing/);
    }
    const old = await get(QUERY, undefined, { version: '1.0' });
    expect(old.status).toBe(200);
    expect(JSON.parse(old.body)).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses an Expect other than 100-continue with a coded 417 naming it, and keeps serving', async () => {
    const response = await get(QUERY, 'gateway', { extra: 'expect: something-else\r\n' });
    expect(response).toMatchObject({ status: 417, code: 'BAD_REQUEST' });
    expect(JSON.parse(response.body).errors[0].message).toMatch(/The Expect header asks for something-else/);
    expect((await stack.get('/health')).status).toBe(200);
  });

  it('refuses CONNECT with a coded 405 naming the methods served, where Node closed the connection without a word', async () => {
    const response = await exchange(
      stack.gateway.url,
      'CONNECT gateway.example:443 HTTP/1.1\r\nhost: gateway.example:443\r\nx-request-id: tunnel-1\r\n\r\n',
    );
    expect(response).toMatchObject({ status: 405, code: 'BAD_REQUEST' });
    expect(JSON.parse(response.body)).toEqual({
      errors: [{ message: 'CONNECT is not allowed here; use GET or POST', extensions: { code: 'BAD_REQUEST', requestId: 'tunnel-1' } }],
    });
    expect((await stack.get('/health')).status).toBe(200);
  });
});
