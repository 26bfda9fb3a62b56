import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { expect } from 'vitest';
import type { Stack } from './stack.js';
import { eventually } from './within.js';

/** A proxy in front of the lookup service that holds one search until the test lets it go. */
export interface HoldingUpstream {
  /** Where the gateway is to send its upstream calls. */
  url: string;
  /** Sets the lookup service everything is forwarded to (known only once the stack around the gateway is up). */
  forwardTo(url: string): void;
  /** Holds the search for `q` from now on (for a proxy made with `{ holding: false }`). */
  hold(): void;
  /** Resolves when the held search arrives. */
  reached: Promise<void>;
  /** How many searches it has held so far: several are in flight together when as many have arrived before the release. */
  readonly arrivals: number;
  /** Lets the held search go on to the lookup service. */
  release(): void;
  /** Releases the search and stops listening. */
  close(): Promise<void>;
}

export interface HoldingOptions {
  /** false: forwards the search too until `hold()`, so that a window can be fetched first and its refresh held. */
  holding?: boolean;
  /** Holds the lookup service's answer, made at once, rather than the request: the data is what it was when asked. */
  answer?: boolean;
  /** Holds only the first search held; later ones go through. */
  once?: boolean;
}

/**
 * Between the gateway and the lookup service: every call is forwarded, and
 * the search for `q` (every search `q` accepts, given a test), or its answer,
 * waits until `release()`. A test drives a client's leaving, or calls in
 * flight together, by these events, not by latencies and client timeouts.
 */
export async function holdingUpstream(
  q: string | ((asked: string) => boolean),
  { holding = true, answer: holdAnswer = false, once = false }: HoldingOptions = {},
): Promise<HoldingUpstream> {
  const held = typeof q === 'string' ? (asked: string) => asked === q : q;
  let target = '';
  let holds = holding;
  let arrivals = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const proxy = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const asked = new URL(incoming.url ?? '/', 'http://upstream').searchParams.get('q');
    const holdsThis = holds && asked !== null && held(asked);
    if (holdsThis && once) holds = false;
    if (holdsThis) arrivals += 1;
    if (holdsThis && !holdAnswer) {
      arrived();
      await released;
    }
    const { host: _host, ...headers } = incoming.headers;
    const answer = await request(`${target}${incoming.url}`, {
      method: incoming.method as 'GET' | 'POST',
      headers: headers as Record<string, string>,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const body = Buffer.from(await answer.body.arrayBuffer());
    if (holdsThis && holdAnswer) {
      arrived();
      await released;
    }
    outgoing.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
    outgoing.end(body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    forwardTo: (url) => {
      target = url.replace(/\/$/, '');
    },
    hold: () => {
      holds = true;
    },
    reached,
    get arrivals() {
      return arrivals;
    },
    release,
    async close() {
      release();
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

/**
 * Sends `body` as a JSON POST and hangs up once the held search has reached
 * the upstream, as a browser tab that closes does; resolves when the gateway
 * has seen its client go.
 */
export async function leaveWhileHeld(
  stack: Stack,
  upstream: HoldingUpstream,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<void> {
  // A client of its own, closed with the request, as a closing tab's connection is.
  const client = new Agent();
  const leaving = new AbortController();
  const abandoned = request(stack.gateway.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: leaving.signal,
    dispatcher: client,
  }).then(
    () => expect.fail('the request should have been abandoned'),
    (error: Error) => expect(error.name).toBe('AbortError'),
  );
  await upstream.reached;
  leaving.abort();
  await abandoned;
  await client.destroy();
  await eventually(() => expect(stack.logs.some((line) => line.includes('The client left before its answer was ready'))).toBe(true));
}
