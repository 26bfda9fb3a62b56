/**
 * Measures what the review of issue 35 measured of reloading, on a gateway
 * started as `npm start` runs it (node dist/main.js, in its own process) in
 * front of a lookup service started here, its API keys in a file
 * (GATEWAY_API_KEYS_FILE):
 *
 * - the event loop blocked by a reload of N keys: the keys file rewritten
 *   with one key more (then less), the reload it sets off waited for by its
 *   log line, and the gateway's own `nodejs_eventloop_lag_max_seconds`
 *   (prom-client, reset at each scrape) read before and after: the longest
 *   the loop waited in between, three rounds for each N;
 * - a storm of SIGHUPs: `--signals` of them sent over one second (by a worker
 *   thread, paced to the microsecond) to a gateway with `--storm-keys` keys,
 *   while one client sends `{ __typename }` with a valid key again and again
 *   (each request given up after 5 s): the reloads run (their log lines), the
 *   longest wait for an answer, the requests given up, and the gateway's
 *   resident set (VmRSS) before, at its highest and after.
 *
 *   npx tsx scripts/measure-reload.ts [--gateway DIR] [--keys 1000,10000,14000] [--signals 904] [--storm-keys 1000]
 *
 * `--keys ''` measures the storm alone. *
 * `--gateway DIR`: the checkout whose dist/ runs (default: this one; run
 * `npm run build` there first), e.g. an export of an earlier commit as a
 * baseline. Figures go to stdout; nothing is asserted (speed and memory goals
 * are for people to read, not for tests).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as pause } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { request } from 'undici';
import { startLookupService } from '../src/lookup-service/index.js';

const { values } = parseArgs({
  options: {
    gateway: { type: 'string', default: '.' },
    keys: { type: 'string', default: '1000,10000,14000' },
    signals: { type: 'string', default: '904' },
    'storm-keys': { type: 'string', default: '1000' },
  },
});
const GATEWAY_DIR = resolve(values.gateway);
const REQUEST_TIMEOUT_MS = 5_000;
const folder = mkdtempSync(join(tmpdir(), 'measure-reload-'));
const keysFile = join(folder, 'gateway-api-keys');

/** `count` keys as `openssl rand -hex 32` writes them, ids `k0`, `k1`…: 14,000 of them take 984 KiB, under the 1 MiB bound. */
function keyList(count: number): string {
  return Array.from({ length: count }, (_, index) => `k${index}:${index.toString(16).padStart(64, '0')}`).join(',');
}
const VALID_KEY = (0).toString(16).padStart(64, '0');

interface Gateway {
  child: ChildProcess;
  url: string;
  metricsUrl: string;
  lines: { msg: string; trigger?: string }[];
  /** Resolves with the first line after `from` that `match` takes. */
  line(match: (msg: string) => boolean, from: number): Promise<void>;
}

async function startGateway(upstream: { url: string; clientId: string; clientSecret: string }, logLevel: string): Promise<Gateway> {
  const child = spawn(process.execPath, ['--enable-source-maps', join(GATEWAY_DIR, 'dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      METRICS_PORT: '0',
      UPSTREAM_URL: upstream.url,
      UPSTREAM_CLIENT_ID: upstream.clientId,
      UPSTREAM_CLIENT_SECRET: upstream.clientSecret,
      GATEWAY_API_KEYS_FILE: keysFile,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: logLevel,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Gateway['lines'] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (text) => {
    if (!text.startsWith('{')) return;
    lines.push(JSON.parse(text) as Gateway['lines'][number]);
    for (const wake of waiters) wake();
  });
  const line = (match: (msg: string) => boolean, from: number) =>
    new Promise<void>((done) => {
      const check = () => {
        if (lines.slice(from).some((entry) => match(entry.msg))) {
          waiters.delete(check);
          done();
        }
      };
      waiters.add(check);
      check();
    });
  await line((msg) => msg.startsWith('Gateway ready'), 0);
  const ready = lines.find((entry) => entry.msg.startsWith('Gateway ready')) as unknown as { graphql: string; metrics: string };
  return { child, url: ready.graphql, metricsUrl: ready.metrics, lines, line };
}

async function stop(gateway: Gateway): Promise<void> {
  gateway.child.kill('SIGTERM');
  await new Promise((done) => gateway.child.once('exit', done));
}

/** The longest the gateway's event loop waited since the last scrape, in ms. */
async function maxLagMs(gateway: Gateway): Promise<number> {
  const text = await (await request(gateway.metricsUrl)).body.text();
  const line = text.split('\n').find((entry) => entry.startsWith('nodejs_eventloop_lag_max_seconds'));
  return Number(line!.split(' ')[1]) * 1000;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** User and system CPU of a process so far, in milliseconds (10 ms steps). */
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

async function reloadBlocks(upstream: Parameters<typeof startGateway>[0], count: number): Promise<void> {
  writeFileSync(keysFile, keyList(count));
  const gateway = await startGateway(upstream, 'info');
  try {
    const lags: string[] = [];
    const cpu: string[] = [];
    for (let round = 0; round < 3; round++) {
      await maxLagMs(gateway);
      const mark = gateway.lines.length;
      const before = cpuMs(gateway.child.pid!);
      writeFileSync(keysFile, keyList(round % 2 === 0 ? count + 1 : count));
      await gateway.line((msg) => msg.startsWith('Reloaded on a file change'), mark);
      cpu.push((cpuMs(gateway.child.pid!) - before).toFixed(0));
      lags.push((await maxLagMs(gateway)).toFixed(0));
    }
    const bytes = Buffer.byteLength(keyList(count));
    console.log(
      `${count} keys (${(bytes / 1024).toFixed(0)} KiB), a reload: event loop blocked for ${lags.join(', ')} ms; gateway CPU ${cpu.join(', ')} ms`,
    );
  } finally {
    await stop(gateway);
  }
}

/** Sends `count` SIGHUPs to `pid` over one second, from a thread of its own so that pacing them blocks nothing here. */
function signalStorm(pid: number, count: number): Promise<void> {
  const worker = new Worker(
    `const { workerData: { pid, count } } = require('node:worker_threads');
     const start = performance.now();
     for (let sent = 0; sent < count; sent++) {
       while (performance.now() < start + (sent * 1000) / count) {}
       process.kill(pid, 'SIGHUP');
     }`,
    { eval: true, workerData: { pid, count } },
  );
  return new Promise((done, fail) => worker.once('exit', () => done()).once('error', fail));
}

async function storm(upstream: Parameters<typeof startGateway>[0], keys: number, signals: number): Promise<void> {
  writeFileSync(keysFile, keyList(keys));
  // Debug: a reload that finds nothing new logged only at debug in earlier releases.
  const gateway = await startGateway(upstream, 'debug');
  const pid = gateway.child.pid!;
  const reloads = () => gateway.lines.filter((entry) => entry.msg.startsWith('Reload') && entry.trigger === 'SIGHUP').length;
  try {
    let stopped = false;
    let longestMs = 0;
    let givenUp = 0;
    let answered = 0;
    let lastAnswer = performance.now();
    let rssPeak = rssMiB(pid);
    const rssBefore = rssPeak;
    const client = (async () => {
      while (!stopped) {
        const sent = performance.now();
        try {
          const answer = await request(gateway.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': VALID_KEY },
            body: '{"query":"{ __typename }"}',
            headersTimeout: REQUEST_TIMEOUT_MS,
            bodyTimeout: REQUEST_TIMEOUT_MS,
          });
          await answer.body.arrayBuffer();
          answered += 1;
          lastAnswer = performance.now();
        } catch {
          givenUp += 1;
        }
        longestMs = Math.max(longestMs, performance.now() - sent);
      }
    })();
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(pid))), 100);
    await pause(1_000);
    const stormStart = performance.now();
    const cpuBefore = cpuMs(pid);
    await signalStorm(pid, signals);
    // Settled once no reload has been logged for 3 s while the client was being answered (a gateway busy reloading
    // writes no line and answers nothing).
    let quietSince = performance.now();
    for (let last = reloads(); performance.now() - quietSince < 3_000 || performance.now() - lastAnswer > 1_000; ) {
      await pause(100);
      if (reloads() !== last || performance.now() - lastAnswer > 1_000) {
        last = reloads();
        quietSince = performance.now();
      }
    }
    const settledAfterS = (quietSince - stormStart) / 1000;
    const cpuS = (cpuMs(pid) - cpuBefore) / 1000;
    stopped = true;
    await client;
    clearInterval(sampler);
    console.log(
      `${signals} SIGHUPs in 1 s, ${keys} keys: ${reloads()} reloads, done ${settledAfterS.toFixed(1)} s after the first signal ` +
        `(gateway CPU ${cpuS.toFixed(1)} s, requests included); ` +
        `longest wait for an answer ${(longestMs / 1000).toFixed(2)} s, ${givenUp} of ${answered + givenUp} requests given up after ${REQUEST_TIMEOUT_MS / 1000} s; ` +
        `RSS ${rssBefore.toFixed(0)} MiB before, ${rssPeak.toFixed(0)} MiB at most, ${rssMiB(pid).toFixed(0)} MiB after`,
    );
  } finally {
    await stop(gateway);
  }
}

const lookup = await startLookupService();
const upstream = { url: lookup.url, ...lookup.credentials };
try {
  console.log(`gateway: ${GATEWAY_DIR}`);
  for (const count of values.keys.split(',').filter(Boolean).map(Number)) await reloadBlocks(upstream, count);
  await storm(upstream, Number(values['storm-keys']), Number(values.signals));
} finally {
  await lookup.close();
  rmSync(folder, { recursive: true, force: true });
}
