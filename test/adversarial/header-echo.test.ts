import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesOf, send } from '../support/http.js';
import { startStack, type Stack } from '../support/stack.js';

/** Stands for what a client may put in a header: a refusal names the header's start, not all of it. */
const MARKER = 'do-not-echo-4c1e';
const LONG_VALUE = `x${MARKER.repeat(500)}`;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    gateway: { rateLimitPerMinute: 0, production: true, allowAnonymous: true, corsAllowedOrigins: ['https://app.example'] },
  });
});
afterAll(() => stack.close());

describe('a refusal quoting a header 8,000 characters long', () => {
  it.each([
    ['Content-Type', { 'content-type': `application/${LONG_VALUE}` }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [
      'Origin of a cross-site request',
      { origin: `https://${LONG_VALUE}`, 'sec-fetch-site': 'cross-site' },
      403,
      'CROSS_SITE_REQUEST_REFUSED',
    ],
    ['Content-Type of a POST a form could send', { 'content-type': `text/plain;${LONG_VALUE}` }, 403, 'CROSS_SITE_REQUEST_REFUSED'],
  ])('names the start of the %s and no more', async (_, headers, status, code) => {
    const answer = await stack.post(JSON.stringify({ query: '{ __typename }' }), headers);
    expect(answer.status).toBe(status);
    expect(answer.text).toContain(`"code":"${code}"`);
    const [message] = messagesOf(answer.text);
    expect(message).toContain(`${LONG_VALUE.slice(0, 60)}`);
    expect(message).toContain('…');
    expect(message!.length).toBeLessThan(400);
  });

  it('names the start of the Origin of a preflight and no more', async () => {
    const answer = await send(stack.gateway.graphqlUrl, {
      method: 'OPTIONS',
      headers: { origin: `https://${LONG_VALUE}`, 'access-control-request-method': 'POST' },
    });
    expect(answer.status).toBe(403);
    const [message] = messagesOf(answer.text);
    expect(message).toContain('…');
    expect(message!.length).toBeLessThan(400);
  });
});
