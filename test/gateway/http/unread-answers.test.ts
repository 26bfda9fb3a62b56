/**
 * Clients that send requests and never read the answers cannot make the
 * gateway hold more than a bounded number of bytes for them. Found by the
 * review of issue 27: 20 clients that sent a request answered 33 MB and never
 * read took the gateway's memory from 217 to 823 MiB, and it stayed at 762 MiB
 * after they left. The bound is on what the gateway counts (the bytes its
 * sockets and queued answers hold), not on the process's memory, which other
 * tests and the collector move.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { UNREAD_ANSWERS_SHARE } from '../../../src/gateway/http/unread-answers.js';
import { COMPANY } from '../../../src/upstream/company.js';
import { openConnection, receiveResponse } from '../../support/raw-connection.js';
import { within } from '../../support/within.js';
import { startStack, type Stack } from '../../support/stack.js';
import { LONG_NAME_REQUEST } from '../../support/long-name-request.js';

/** MAX_RESPONSE_BYTES unless the environment says otherwise. */
const DEFAULT_MAX_RESPONSE_BYTES = readConfig({}).maxResponseBytes;

const CLIENTS = 20;
/** Requests each client pipelines: several answers near MAX_RESPONSE_BYTES, more than loopback's socket buffers take (a few MB). */
const PIPELINED = 10;
const BOUND = DEFAULT_MAX_RESPONSE_BYTES * UNREAD_ANSWERS_SHARE;
/** Only a safety bound on waits for events; also the idle timeout, so that only the bound or the clients' leaving lets a connection go. */
const SAFETY_MS = 120_000;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateway: { rateLimitPerMinute: 0, idleSocketTimeoutMs: SAFETY_MS } });
  // Every name as long as the gateway takes one: the largest answers the caps allow this request, each under MAX_RESPONSE_BYTES.
  stack.lookup.knobs.mapResults = (results) =>
    results.map((result) => ({ ...result, name: result.name.padEnd(COMPANY.name.maxLength, '.') }));
});
afterAll(() => stack.close());

/** The request as a client writes it on its connection. */
function requestText(body: string, headers = ''): string {
  return `POST /graphql HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\naccept: application/json\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A client that pipelines `count` copies of `body` and reads nothing (no 'data' listener: its socket stays paused). */
async function nonReader(count: number, body: string): Promise<{ socket: Socket; closed: Promise<unknown> }> {
  const { port, hostname } = new URL(stack.gateway.url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  const closed = new Promise((resolve) => socket.once('close', resolve));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(requestText(body).repeat(count));
  return { socket, closed };
}

/** The lines the gateway logs when it lets a connection go without its client's doing, from `from` on. */
function letGo(from: number): { bound: string[]; idle: string[] } {
  const lines = stack.logs.slice(from);
  return {
    bound: lines.filter((line) => line.includes('Client disconnected: it had not read its answers')),
    idle: lines.filter((line) => line.includes('Connection closed: idle')),
  };
}

describe('clients that never read their answers', () => {
  it(
    `cannot make the gateway hold more than ${UNREAD_ANSWERS_SHARE} times MAX_RESPONSE_BYTES for them, and all is let go`,
    async () => {
      const body = JSON.stringify(LONG_NAME_REQUEST);
      const reader = await openConnection(stack.gateway.url);
      await reader.write(requestText(body, 'connection: close\r\n'));
      const answer = await receiveResponse(reader);
      expect(answer.status).toBe(200);
      // Each answer is large, and within the limit: what the clients below are sent, and do not read.
      const answerBytes = Buffer.byteLength(answer.body, 'latin1');
      expect(answerBytes).toBeGreaterThan(DEFAULT_MAX_RESPONSE_BYTES / 2);
      expect(answerBytes).toBeLessThanOrEqual(DEFAULT_MAX_RESPONSE_BYTES);
      // Without the bound they would be held about CLIENTS × PIPELINED answers, well past it, until the timeouts let them go.
      expect(CLIENTS * PIPELINED * answerBytes).toBeGreaterThan(2 * BOUND);
      await reader.closed;

      const from = stack.logs.length;
      const held: number[] = [];
      const sampling = setInterval(() => held.push(stack.gateway.unreadAnswerBytes), 20);
      const clients = await Promise.all(Array.from({ length: CLIENTS }, () => nonReader(PIPELINED, body)));
      try {
        // Far more is asked than the bound and the sockets' buffers together: the bound lets the connections holding most go.
        await vi.waitFor(() => expect(letGo(from).bound.length).toBeGreaterThan(0), { timeout: SAFETY_MS, interval: 100 });
        expect(JSON.parse(letGo(from).bound[0]!)).toMatchObject({ level: 40, maxBytes: BOUND, heldBytes: expect.any(Number) });
        // The clients leave: whatever was held for them is let go.
        for (const { socket } of clients) socket.destroy();
        await within(Promise.all(clients.map(({ closed }) => closed)), SAFETY_MS, 'the clients leaving');
        await vi.waitFor(() => expect(stack.gateway.unreadAnswerBytes).toBe(0), { timeout: SAFETY_MS, interval: 100 });
      } finally {
        clearInterval(sampling);
      }
      expect(Math.max(...held)).toBeLessThanOrEqual(BOUND);
      expect(Math.max(...held)).toBeGreaterThan(0);

      // And the gateway still answers those that read.
      expect((await stack.post(body, { accept: 'application/json' })).status).toBe(200);
    },
    2 * SAFETY_MS,
  );
});
