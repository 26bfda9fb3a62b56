import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesOf, send } from '../../support/http.js';
import { exchange } from '../../support/raw-connection.js';
import { startStack, type Stack } from '../../support/stack.js';

/** Stands for what a client may put in a header: a refusal names the header's start, not all of it. */
const MARKER = 'do-not-echo-4c1e';
const LONG_VALUE = `x${MARKER.repeat(500)}`;
/** An Accept the gateway reads (at most 512 characters) that allows none of its answer types. */
const LONG_ACCEPT = `x/${MARKER.repeat(30)}`;

/** The message of a refusal quoting `value`: its start, an ellipsis, and not the rest. */
function expectExcerptOf(value: string, message: string | undefined) {
  expect(message).toContain(`${value.slice(0, 60)}`);
  expect(message).toContain('…');
  expect(message!.length).toBeLessThan(400);
}

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    gateway: { rateLimitPerMinute: 0, nodeEnv: 'production', allowAnonymous: true, corsAllowedOrigins: ['https://app.example'] },
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
    [
      "Content-Type of a POST a browser's form could send",
      { 'content-type': `text/plain;${LONG_VALUE}`, origin: 'https://evil.example' },
      403,
      'CROSS_SITE_REQUEST_REFUSED',
    ],
    [
      'Content-Type of a POST a command-line client sent as text',
      { 'content-type': `text/plain;${LONG_VALUE}` },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
  ])('names the start of the %s and no more', async (_, headers, status, code) => {
    const answer = await stack.post(JSON.stringify({ query: '{ __typename }' }), headers);
    expect(answer.status).toBe(status);
    expect(answer.text).toContain(`"code":"${code}"`);
    expectExcerptOf(LONG_VALUE, messagesOf(answer.text)[0]);
  });

  it('names the start of an Accept of 482 characters that allows no answer type and no more', async () => {
    const answer = await stack.post(JSON.stringify({ query: '{ __typename }' }), { accept: LONG_ACCEPT });
    expect(answer.status).toBe(406);
    expect(answer.text).toContain('"code":"NOT_ACCEPTABLE"');
    expectExcerptOf(LONG_ACCEPT, messagesOf(answer.text)[0]);
  });

  it('names the start of an Expect other than 100-continue and no more', async () => {
    const response = await exchange(
      stack.gateway.url,
      `GET /health HTTP/1.1\r\nhost: gateway\r\nexpect: ${LONG_VALUE}\r\nconnection: close\r\n\r\n`,
    );
    expect(response).toMatchObject({ status: 417, code: 'BAD_REQUEST' });
    // The connection reads latin1; the message is UTF-8.
    expectExcerptOf(LONG_VALUE, messagesOf(Buffer.from(response.body, 'latin1').toString('utf8'))[0]);
  });

  it('names the start of the Origin of a preflight and no more', async () => {
    const answer = await send(stack.gateway.graphqlUrl, {
      method: 'OPTIONS',
      headers: { origin: `https://${LONG_VALUE}`, 'access-control-request-method': 'POST' },
    });
    expect(answer.status).toBe(403);
    expectExcerptOf(`https://${LONG_VALUE}`, messagesOf(answer.text)[0]);
  });
});
