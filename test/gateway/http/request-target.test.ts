import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originForm } from '../../../src/gateway/http/request-target.js';
import { exchange } from '../../support/raw-connection.js';
import { startStack, type Stack } from '../../support/stack.js';

const QUERY = JSON.stringify({ query: '{ __typename }' });

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
});
afterAll(() => stack.close());

function send(requestLine: string, body?: string) {
  const headers = ['host: gateway', 'accept: application/graphql-response+json', 'connection: close'];
  if (body !== undefined) headers.push('content-type: application/json', `content-length: ${body.length}`);
  return exchange(stack.gateway.url, `${requestLine}\r\n${headers.join('\r\n')}\r\n\r\n${body ?? ''}`);
}

describe('an absolute-form request line', () => {
  it('is served by its path: POST http://host/graphql; another path gets 404 NOT_FOUND, as in origin form', async () => {
    const response = await send(`POST ${stack.gateway.graphqlUrl} HTTP/1.1`, QUERY);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ data: { __typename: 'Query' } });
    expect(await send('POST http://elsewhere.example/other HTTP/1.1', QUERY)).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await send('POST http://elsewhere.example HTTP/1.1', QUERY)).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('is served by its path and query, whatever its authority: GET http://elsewhere.example/graphql?query=…', async () => {
    const response = await send(`GET http://elsewhere.example/graphql?query=${encodeURIComponent('{ __typename }')} HTTP/1.1`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('/health with a query string', () => {
  // Found by the adversarial review of issues 12 and 16: Yoga's health check matches only a URL ending in /health,
  // so a load balancer's /health?probe=1 got Yoga's 404 with an empty body and no code.
  it('answers 200 as /health does', async () => {
    for (const target of ['/health?probe=1', '/health?', 'http://gateway/health?x=%zz']) {
      expect((await send(`GET ${target} HTTP/1.1`)).status, target).toBe(200);
    }
  });
});

describe('originForm', () => {
  it('takes path and query from the absolute form as sent, an empty path as /, and leaves other targets alone', () => {
    expect(originForm('http://host:4000/graphql?query=x')).toBe('/graphql?query=x');
    expect(originForm('HTTPS://host/a/../graphql')).toBe('/a/../graphql');
    expect(originForm('http://host')).toBe('/');
    expect(originForm('http://host?query=x')).toBe('/?query=x');
    expect(originForm('/graphql')).toBe('/graphql');
    expect(originForm('*')).toBe('*');
  });
});
