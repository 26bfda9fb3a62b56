import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/codes.js';
import { BAD_INPUT_CASES as CASES } from '../support/bad-input-cases.js';
import { send } from '../support/http.js';
import { rawExchange } from '../support/raw-connection.js';
import { startStack, type Stack } from '../support/stack.js';
import { expectNoUpstreamCall } from '../support/upstream-calls.js';

/**
 * Every kind of malformed request, with the default settings (rate limit
 * aside, which would start answering 429 part-way): each gets a 4xx, never a
 * 5xx, with a GraphQL-shaped body whose message says what was wrong and whose
 * errors each carry a code of the catalogue; none
 * reaches the upstream, and the gateway answers normally afterwards.
 */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
});
afterAll(() => stack.close());

describe('bad-input battery', () => {
  it('has at least 100 cases, each named once', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(CASES.map((badInput) => badInput.name)).size).toBe(CASES.length);
  });

  it.each(CASES.map((badInput) => [badInput.name, badInput] as const))('%s', async (_, { request, status, message }) => {
    const response = await send(stack.gateway.url, { path: '/graphql', ...request });
    expect(response.status).toBe(status);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    const body = JSON.parse(response.text) as { data?: unknown; errors: { message: string; extensions?: { code?: string } }[] };
    expect(body.data ?? null).toBeNull();
    expect(body.errors.map((error) => error.extensions?.code).filter((code) => code === undefined || !(code in ERROR_CODES))).toEqual([]);
    if (typeof message === 'string') expect(body.errors[0]!.message).toBe(message);
    else expect(body.errors[0]!.message).toMatch(message);
  });

  it.each([
    [
      'not HTTP at all',
      'HELLO\r\n\r\n',
      '400 Bad Request',
      'The request is not valid HTTP/1.1 (HPE_INVALID_METHOD); send a well-formed HTTP/1.1 request',
    ],
    [
      'a header line without a colon',
      'GET /graphql HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n',
      '400 Bad Request',
      'The request is not valid HTTP/1.1 (HPE_INVALID_HEADER_TOKEN); send a well-formed HTTP/1.1 request',
    ],
    [
      'a Content-Length that is no number',
      'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n',
      '400 Bad Request',
      'The request is not valid HTTP/1.1 (HPE_INVALID_CONTENT_LENGTH); send a well-formed HTTP/1.1 request',
    ],
    [
      'headers over 16 KiB',
      `GET /graphql HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`,
      '431 Request Header Fields Too Large',
      'The request headers are larger than this server accepts; send fewer or shorter headers',
    ],
  ])('answers malformed HTTP (%s) in the same shape', async (_, raw, status, message) => {
    const answer = await rawExchange(stack.gateway.url, raw);
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status}`);
    expect(JSON.parse(body)).toEqual({ errors: [{ message, extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' } }] });
  });

  it('made no upstream call, and the gateway still answers a normal query', async () => {
    expectNoUpstreamCall(stack);
    const { status, text } = await stack.post({ query: '{ searchCompanies(q: "Zebra Quantum", jurisdiction: "GB") { totalCount } }' });
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ data: { searchCompanies: { totalCount: 1 } } });
  });
});
