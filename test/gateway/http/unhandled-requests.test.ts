/**
 * Found by the adversarial review of the hot-path and coded-answer changes at
 * the HTTP edge (issue 17): what a misbehaving client can do to the code every
 * request passes through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from '../../support/raw-connection.js';
import { startStack, type Stack } from '../../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
});
afterAll(() => stack.close());

describe('a CONNECT whose client resets the connection', () => {
  it('does not throw out of the gateway: Node leaves the socket it hands over without an error listener', async () => {
    const uncaught: Error[] = [];
    const monitor = (error: Error) => uncaught.push(error);
    process.on('uncaughtExceptionMonitor', monitor);
    try {
      // The reset must reach the gateway before its 405 is written; on loopback it nearly always does, and some of these make sure.
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const connection = await openConnection(stack.gateway.url);
        await connection.write('CONNECT gateway.example:443 HTTP/1.1\r\nhost: gateway.example:443\r\n\r\n');
        connection.socket.resetAndDestroy();
        await connection.closed;
      }
      // The gateway has seen every one of them once it answers a request sent after them.
      expect((await stack.get('/health')).status).toBe(200);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtExceptionMonitor', monitor);
    }
  });
});

describe('a CONNECT pipelined behind a request', () => {
  it('is refused after that request is answered, not in its place: Node hands the socket over at once', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const connection = await openConnection(stack.gateway.url);
    await connection.write(
      `POST /graphql HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}` +
        'CONNECT gateway.example:443 HTTP/1.1\r\nhost: gateway.example:443\r\n\r\n',
    );
    await connection.closed;
    const [first, second] = connection.received.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('{"data":{"__typename":"Query"}}');
    expect(second).toMatch(/^HTTP\/1\.1 405 /);
  });
});

describe('bytes that do not parse, pipelined behind a request', () => {
  it('are refused after that request is answered, not in its place', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const connection = await openConnection(stack.gateway.url);
    await connection.write(
      `POST /graphql HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}GARBAGE\r\n\r\n`,
    );
    await connection.closed;
    const [first, second] = connection.received.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('{"data":{"__typename":"Query"}}');
    expect(second).toMatch(/^HTTP\/1\.1 400 /);
    expect(second).toContain('HPE_INVALID_METHOD');
  });
});
