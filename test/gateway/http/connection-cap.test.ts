import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refusedConnectionsAllowed } from '../../../src/gateway/http/connection-cap.js';
import { finalResponse, openConnection, receiveResponse, type RawConnection } from '../../support/raw-connection.js';
import { SAFETY_MS, within } from '../../support/within.js';
import { startStack, type Stack } from '../../support/stack.js';

const MAX_CONNECTIONS = 2;
const QUERY = JSON.stringify({ query: '{ __typename }' });

// A gateway per test: whether a connection a test let go of is still counted would otherwise depend on timing.
let stack: Stack;
let connections: RawConnection[];
beforeEach(async () => {
  stack = await startStack({ gateway: { maxConnections: MAX_CONNECTIONS, rateLimitPerMinute: 0, refusalLingerMs: 60_000 } });
  connections = [];
});
afterEach(async () => {
  for (const connection of connections) connection.destroy();
  await stack.close();
});

async function connect(): Promise<RawConnection> {
  const connection = await openConnection(stack.gateway.url);
  connections.push(connection);
  return connection;
}

function post(body = QUERY, extra: string[] = []): string {
  return [
    'POST /graphql HTTP/1.1',
    'host: gateway',
    'content-type: application/json',
    'accept: application/graphql-response+json',
    `content-length: ${body.length}`,
    ...extra,
    '',
    body,
  ].join('\r\n');
}

/** Sends one request on `connection` and waits for its whole answer; the connection stays open unless the answer closes it. */
async function ask(connection: RawConnection, request = post()) {
  const before = connection.received.length;
  const answerIn = (received: string) => finalResponse(received.slice(before));
  await connection.write(request);
  await connection.receive((received) => answerIn(received) !== undefined);
  return answerIn(connection.received)!;
}

describe('MAX_CONNECTIONS', () => {
  it('serves that many connections; one more is answered 503 TOO_MANY_CONNECTIONS and closed; the first still served', async () => {
    const served = [await connect(), await connect()];
    for (const connection of served) expect((await ask(connection)).status).toBe(200);

    const extra = await connect();
    const refusal = await ask(extra);
    expect(refusal).toMatchObject({ status: 503, code: 'TOO_MANY_CONNECTIONS', headers: { 'retry-after': '1', connection: 'close' } });
    expect(JSON.parse(refusal.body).errors[0].message).toBe(
      'The server has as many connections open as it serves (MAX_CONNECTIONS); try again in 1 s',
    );
    await within(extra.closed, SAFETY_MS, 'closing the refused connection');

    for (const connection of served) expect((await ask(connection)).status).toBe(200);
  });

  it('closes connections past its share of refusals unanswered, and says so once in the log', async () => {
    expect(refusedConnectionsAllowed(MAX_CONNECTIONS)).toBe(1);
    const served = [await connect(), await connect()];
    for (const connection of served) expect((await ask(connection)).status).toBe(200);
    // Refused while its body is awaited, it keeps the one refusal slot.
    const refused = await connect();
    await refused.write(post(QUERY).slice(0, -QUERY.length));
    expect(await receiveResponse(refused)).toMatchObject({ status: 503 });

    const from = stack.logs.length;
    const dropped = await connect();
    void dropped.write(post());
    await within(dropped.closed, SAFETY_MS, 'closing the connection over the cap');
    expect(dropped.received).toBe('');
    const warnings = stack.logs.slice(from).map((line) => JSON.parse(line) as { level: number; msg: string; dropped?: number });
    expect(warnings.filter((line) => line.level === 40)).toEqual([
      expect.objectContaining({
        msg: 'Connections closed unanswered: over MAX_CONNECTIONS or MAX_CONNECTIONS_PER_ADDRESS and its share of refusals',
        dropped: 1,
        overAddressLimit: 0,
      }),
    ]);
  });

  it('serves a connection accepted over the cap if a served one has closed before its first request', async () => {
    const served = [await connect(), await connect()];
    for (const connection of served) expect((await ask(connection)).status).toBe(200);
    const waiting = await connect();
    // The server closes this one itself, so it has let go of it by the time the client sees the close.
    expect((await ask(served[0]!, post(QUERY, ['connection: close']))).status).toBe(200);
    await within(served[0]!.closed, SAFETY_MS, 'closing the first connection');
    expect((await ask(waiting)).status).toBe(200);
  });
});
