/**
 * Measures what the review of issue 27 measured for one long upstream name,
 * on a gateway started as `npm start` runs it (node dist/main.js, in its own
 * process) in front of the embedded lookup service, which sends one result of
 * the search a name of 1,000,000 characters:
 *
 * - CPU per request: the review's request (15 aliases of searchCompanies
 *   with nodes and edges, plus company), sent again and again by one client
 *   that reads its answers, the gateway process's user and system CPU
 *   (/proc/PID/stat) divided by the requests;
 * - memory with clients that never read: 20 clients send the request (once
 *   each, then again pipelining it 10 times) and read nothing; the gateway's
 *   resident set (VmRSS) before, while they are connected, and once they
 *   have gone. Nothing forces a collection: what the clients left may stay
 *   resident until the gateway's next major collection, so give several
 *   rounds (`--pipelined 10,10,10,10`) to see whether it comes back down or
 *   keeps growing.
 *
 *   npx tsx scripts/measure-long-name.ts [--gateway DIR] [--requests N] [--pipelined 1,10] [--names-at-cap]
 *
 * `--gateway DIR`: the checkout whose dist/ runs (default: this one; run
 * `npm run build` there first), e.g. a worktree of an earlier commit as a
 * baseline. `--pipelined`: how many copies of the request each non-reading
 * client pipelines, one run per number given. `--names-at-cap`: instead of
 * the long name, every name of the search as long as the cap takes (500
 * characters), the largest answers the caps allow this request. Figures go to
 * stdout; nothing is asserted (speed and memory goals are for people to read,
 * not for tests).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as pause } from 'node:timers/promises';
import { request } from 'undici';
import { startLookupService } from '../src/lookup-service/index.js';
import { LONG_NAME, LONG_NAME_REQUEST, TARGET } from '../test/support/long-name-request.js';

const { values } = parseArgs({
  options: {
    gateway: { type: 'string', default: '.' },
    requests: { type: 'string', default: '40' },
    pipelined: { type: 'string', default: '1,10' },
    'names-at-cap': { type: 'boolean', default: false },
  },
});
const GATEWAY_DIR = resolve(values.gateway);
const REQUESTS = Number(values.requests);
const CLIENTS = 20;
const PIPELINED = values.pipelined.split(',').map(Number);
/** Every other name of the search padded to this many characters: the longest this gateway's cap takes. */
const NAME_CAP = 500;
const CLOCK_TICKS_PER_SECOND = 100;

let sent = 0;
/**
 * The request, with a variable the operation does not use and that differs on
 * every request: each is answered afresh, as the review's were, not from the
 * response cache (which would send every client the same stored bytes).
 */
function body(): string {
  sent += 1;
  return JSON.stringify({ query: LONG_NAME_REQUEST.query, variables: { request: sent } });
}
function requestText(): string {
  const text = body();
  return `POST /graphql HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\naccept: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
}

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

/** User and system CPU of a process so far, in milliseconds. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

async function startGateway(upstreamUrl: string, clientId: string, clientSecret: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--enable-source-maps', join(GATEWAY_DIR, 'dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      UPSTREAM_URL: upstreamUrl,
      UPSTREAM_CLIENT_ID: clientId,
      UPSTREAM_CLIENT_SECRET: clientSecret,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      await request(`${url}/health`);
      return { child, url };
    } catch {
      await pause(100);
    }
  }
}

async function post(url: string): Promise<{ status: number; bytes: number; text: string }> {
  const answer = await request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: body(),
  });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  return { status: answer.statusCode, bytes: bytes.byteLength, text: bytes.toString('utf8') };
}

/** The error codes of an answer, with how often each came, and the longest string in its data. */
function describeAnswer(text: string): string {
  const { data, errors = [] } = JSON.parse(text) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  const codes = new Map<string, number>();
  for (const error of errors) codes.set(error.extensions?.code ?? 'no code', (codes.get(error.extensions?.code ?? 'no code') ?? 0) + 1);
  let longest = 0;
  JSON.stringify(data, (_key, value: unknown) => {
    if (typeof value === 'string') longest = Math.max(longest, value.length);
    return value;
  });
  const errorText = codes.size === 0 ? 'no errors' : [...codes].map(([code, count]) => `${count} ${code}`).join(', ');
  return `${errorText}; longest string in data: ${longest} characters`;
}

async function nonReaders(url: string, pipelined: number): Promise<Socket[]> {
  const { port } = new URL(url);
  return Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      await new Promise((done) => socket.once('connect', done));
      socket.write(Array.from({ length: pipelined }, requestText).join(''));
      return socket;
    }),
  );
}

/** Waits until the gateway has used no CPU for a second: it has answered everything it was sent. */
async function settled(pid: number): Promise<void> {
  let last = cpuMs(pid);
  for (;;) {
    await pause(1_000);
    const now = cpuMs(pid);
    if (now === last) return;
    last = now;
  }
}

const lookup = await startLookupService();
lookup.knobs.mapResults = (results) =>
  results.map((result) => {
    if (result.companyNumber === TARGET.companyNumber) return { ...result, name: values['names-at-cap'] ? result.name : LONG_NAME };
    return values['names-at-cap'] ? { ...result, name: result.name.padEnd(NAME_CAP, '.') } : result;
  });
const { child, url } = await startGateway(lookup.url, lookup.credentials.clientId, lookup.credentials.clientSecret);
const pid = child.pid!;
try {
  const first = await post(url);
  console.log(`gateway: ${GATEWAY_DIR}`);
  console.log(`answer to the review's request: status ${first.status}, ${first.bytes} bytes, ${describeAnswer(first.text)}`);
  for (let i = 0; i < 5; i++) await post(url);
  const before = cpuMs(pid);
  for (let i = 0; i < REQUESTS; i++) await post(url);
  console.log(`CPU per request: ${((cpuMs(pid) - before) / REQUESTS).toFixed(1)} ms (${REQUESTS} requests one after another)`);

  for (const pipelined of PIPELINED) {
    await settled(pid);
    const rssBefore = rssMiB(pid);
    const clients = await nonReaders(url, pipelined);
    await settled(pid);
    const rssWith = rssMiB(pid);
    for (const client of clients) client.destroy();
    await pause(2_000);
    await settled(pid);
    const rssAfter = rssMiB(pid);
    console.log(
      `${CLIENTS} clients that never read, ${pipelined} request(s) each: RSS ${rssBefore.toFixed(0)} MiB before, ${rssWith.toFixed(0)} MiB with them (+${(rssWith - rssBefore).toFixed(0)}), ${rssAfter.toFixed(0)} MiB once gone`,
    );
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  await lookup.close();
}
