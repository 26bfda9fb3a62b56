import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionsCheckingIntervalFor, MAX_CONNECTIONS_CHECK_INTERVAL_MS } from '../../../src/gateway/http/http-server.js';
import { finalResponse, openConnection } from '../../support/raw-connection.js';
import { SAFETY_MS, within } from '../../support/within.js';
import { startStack, type Stack } from '../../support/stack.js';

const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 600;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateway: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS } });
});
afterAll(() => stack.close());

describe('a slow client', () => {
  it('that never finishes its headers gets 408 REQUEST_TIMEOUT and is closed at HEADERS_TIMEOUT_MS', async () => {
    const connection = await openConnection(stack.gateway.url);
    await connection.write('POST /graphql HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n');
    const closed = await within(connection.closed, SAFETY_MS, 'closing the connection');
    expect(closed.afterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
    const answer = finalResponse(connection.received);
    expect(answer).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', headers: { connection: 'close' } });
    expect(JSON.parse(answer!.body)).toEqual({
      errors: [
        {
          message: 'The request was not received in time; send it again, without pauses',
          extensions: { requestId: expect.any(String), code: 'REQUEST_TIMEOUT' },
        },
      ],
    });
  });

  it('that sends its body too slowly gets 408 and is closed at REQUEST_TIMEOUT_MS, however steadily it sends', async () => {
    const connection = await openConnection(stack.gateway.url);
    await connection.write(
      'POST /graphql HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"query":',
    );
    // A byte every 50 ms: never idle long, never done.
    const trickle = setInterval(() => void connection.write(' '), 50);
    try {
      const closed = await within(connection.closed, SAFETY_MS, 'closing the connection');
      expect(closed.afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    } finally {
      clearInterval(trickle);
    }
    expect(finalResponse(connection.received)).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
  });
});

describe('the timeouts are checked often enough to hold', () => {
  it('every tenth of the headers timeout, and at least once a second', () => {
    expect(connectionsCheckingIntervalFor(HEADERS_TIMEOUT_MS)).toBe(30);
    expect(connectionsCheckingIntervalFor(10_000)).toBe(MAX_CONNECTIONS_CHECK_INTERVAL_MS);
    expect(connectionsCheckingIntervalFor(600_000)).toBe(MAX_CONNECTIONS_CHECK_INTERVAL_MS);
  });
});
