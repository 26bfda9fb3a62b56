import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parse } from 'graphql';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GRAPHIQL_EXAMPLE_QUERY } from '../../src/gateway/graphiql/graphiql-example.js';
import { SearchIndex, defaultDataSet, type CompanyResult } from '../../src/lookup-service/index.js';
import { SearchCompaniesExampleDocument, type SearchCompaniesExampleQuery } from '../generated/graphql.js';
import { expectedCompany, selectedOf, selectionAt } from '../support/expected.js';
import { json, send } from '../support/http.js';
import { startStack, type Stack } from '../support/stack.js';
import { PROCESS_START_MS, SAFETY_MS, within } from '../support/within.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * What `npx tsx` resolves to. It is run directly because `npx` (npm exec) does
 * not pass SIGTERM on: it kills its `sh -c` child, re-raises the signal on
 * itself and leaves tsx and the gateway running, orphaned.
 */
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
/** Loaded with --import, it writes `module <url>` to stderr for every module the process loads. */
const TRACE_MODULES = fileURLToPath(new URL('../support/trace-modules.mjs', import.meta.url));
const READY_TIMEOUT_MS = PROCESS_START_MS;
const MANIFEST = fileURLToPath(new URL('../generated/persisted-documents.json', import.meta.url));
const EXIT_TIMEOUT_MS = SAFETY_MS;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());
beforeEach(() => stack.lookup.counters.reset());

/** ISO codes of the countries the data set writes out as names. */
const COUNTRY_CODES: Record<string, string> = {
  GB: 'GB',
  IE: 'IE',
  'United Kingdom': 'GB',
  Ireland: 'IE',
  England: 'GB',
  Scotland: 'GB',
  Wales: 'GB',
  'Northern Ireland': 'GB',
};

function countryCodeOf(company: CompanyResult): string | null {
  const country = company.addressStructured?.country ?? null;
  if (country === null) return null;
  const code = COUNTRY_CODES[country];
  if (code === undefined) throw new Error(`No ISO code known for ${JSON.stringify(country)}`);
  return code;
}

type ExampleNode = SearchCompaniesExampleQuery['searchCompanies']['edges'][number]['node'];

const EXAMPLE_NODE = selectionAt(parse(GRAPHIQL_EXAMPLE_QUERY), ['searchCompanies', 'edges', 'node']);

/** A company as the example query selects it. */
function exampleNode(company: CompanyResult): ExampleNode {
  return selectedOf(expectedCompany(company, countryCodeOf(company)), EXAMPLE_NODE) as ExampleNode;
}

describe('HTTP surface', () => {
  it('serves GraphiQL to a browser at /graphql, opening with the example query', async () => {
    const { status, headers, text } = await stack.get('/graphql', { accept: 'text/html' });
    expect(status).toBe(200);
    expect(headers['content-type']).toMatch(/^text\/html/);
    expect(text).toContain('<title>Company search</title>');
    expect(text).toContain('SearchCompaniesExample');
    expect(text).toContain(JSON.stringify(GRAPHIQL_EXAMPLE_QUERY.trim()).slice(1, -1));
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it('runs the example query without errors: 5 results for "holdings" in GB', async () => {
    const upstream = new SearchIndex(defaultDataSet()).search({ q: 'holdings', jurisdiction: 'GB', page: 1, pageSize: 50 });
    expect(upstream.total).toBeGreaterThan(50);

    const { status, body } = await stack.execute(SearchCompaniesExampleDocument, {});
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const connection = body.data!.searchCompanies;
    expect(connection.edges).toHaveLength(5);
    expect(connection).toEqual({
      totalCount: upstream.total,
      reachableCount: 50,
      fetchedAt: expect.any(String),
      stale: false,
      pageInfo: { hasNextPage: true, endCursor: connection.edges[4]!.cursor },
      edges: upstream.results.slice(0, 5).map((company) => ({ cursor: expect.any(String), node: exampleNode(company) })),
    });
    expect(new Set(connection.edges.map((edge) => edge.cursor)).size).toBe(5);
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });

  it('answers 200 at /health', async () => {
    const { status } = await stack.get('/health');
    expect(status).toBe(200);
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it('answers 404 for an unknown path', async () => {
    for (const path of ['/', '/nope', '/graphql/extra', '/healthz']) {
      const { status } = await stack.get(path, { accept: 'text/html' });
      expect(status, path).toBe(404);
    }
    const posted = await send(`${stack.gateway.url}/nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(posted.status).toBe(404);
  });
});

interface Launched {
  child: ChildProcess;
  stdoutLines(): string[];
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `src/main.ts` in a process of its own, without any UPSTREAM_* setting: it starts its embedded lookup service. */
function launchMain(settings: Record<string, string>): Launched {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('UPSTREAM_')));
  const child = spawn(TSX, ['src/main.ts'], {
    cwd: ROOT,
    env: { ...env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that cleanup reaches tsx's child process too.
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // 'close', not 'exit': by then stdout and stderr are read to the end.
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    // Complete lines only: while the gateway runs, the last one may still be arriving.
    stdoutLines: () =>
      stdout
        .slice(0, stdout.lastIndexOf('\n') + 1)
        .split('\n')
        .filter((line) => line.trim() !== ''),
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
  };
}

function kill(launched: Launched | undefined): void {
  const pid = launched?.child.pid;
  if (pid === undefined || launched!.child.exitCode !== null || launched!.child.signalCode !== null) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The gateway's JSON "ready" log line, once it is written. */
async function readyLine(launched: Launched): Promise<Record<string, unknown>> {
  const found = new Promise<Record<string, unknown>>((resolve, reject) => {
    const look = () => {
      for (const line of launched.stdoutLines()) {
        const entry = parseJson(line);
        if (typeof entry?.msg === 'string' && entry.msg.startsWith('Gateway ready')) {
          launched.child.stdout!.off('data', look);
          resolve(entry);
          return;
        }
      }
    };
    launched.child.stdout!.on('data', look);
    look();
    void launched.exited.then(({ code, signal }) =>
      reject(new Error(`main.ts exited (${code ?? signal}) before it was ready: ${launched.stderr()}`)),
    );
  });
  return within(found, READY_TIMEOUT_MS, 'the ready log line');
}

/** How many companies of each jurisdiction the embedded lookup service's data holds. */
function heldJurisdictions(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { jurisdiction } of defaultDataSet()) counts[jurisdiction] = (counts[jurisdiction] ?? 0) + 1;
  return counts;
}

/** The GraphiQL URL from the gateway's ready line. */
async function graphiqlUrl(launched: Launched): Promise<string> {
  const { graphiql } = await readyLine(launched);
  if (typeof graphiql !== 'string') throw new Error(`No GraphiQL URL in the ready line: ${JSON.stringify(graphiql)}`);
  return graphiql;
}

function parseJson(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Every value given to a client_secret / clientSecret key in the text. */
function clientSecretValues(text: string): string[] {
  return [...text.matchAll(/client_?secret["']?\s*[:=]\s*["']?([^"',}\s]*)/gi)].map((match) => match[1] ?? '');
}

describe('the main entry (src/main.ts)', () => {
  let launched: Launched | undefined;
  afterEach(() => {
    kill(launched);
    launched = undefined;
  });

  it(
    'starts the gateway in front of an embedded lookup service, answers searches, keeps the secret out of its logs and stops on SIGTERM',
    async () => {
      launched = launchMain({ PORT: '0' });
      const url = await graphiqlUrl(launched);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
      expect(new URL(url).port).not.toBe('0');

      const response = await send(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({
          query: '{ searchCompanies(q: "Zebra Quantum", jurisdiction: "GB") { totalCount nodes { name companyNumber } } }',
        }),
      });
      expect(response.status).toBe(200);
      expect(json(response)).toEqual({
        data: { searchCompanies: { totalCount: 1, nodes: [{ name: 'Zebra Quantum Fisheries Ltd', companyNumber: '09876543' }] } },
      });

      const lines = launched.stdoutLines();
      const entries = lines.map(parseJson);
      expect(
        lines.filter((_, index) => entries[index] === undefined),
        'stdout lines that are not JSON',
      ).toEqual([]);
      expect(entries).toContainEqual(
        expect.objectContaining({
          msg: `Embedded lookup service started (UPSTREAM_URL is unset): companies in ${Object.keys(heldJurisdictions()).join(', ')} only`,
          url: expect.any(String),
          jurisdictions: heldJurisdictions(),
        }),
      );
      // What the environment set, setting by setting; nothing at its default.
      const printed = entries.find((entry) => typeof entry?.msg === 'string' && entry.msg.startsWith('Configuration: '));
      expect(printed?.set).toMatchObject({ host: '127.0.0.1', port: 0, logLevel: 'info' });
      expect(printed?.set).not.toHaveProperty('upstreamUrl');
      expect(printed?.set).not.toHaveProperty('cacheTtlMs');
      expect(printed?.msg).toBe(
        `Configuration: ${Object.keys(printed?.set as object).length} settings set, the others at their defaults (docs/configuration.md)`,
      );

      launched.child.kill('SIGTERM');
      const exit = await within(launched.exited, EXIT_TIMEOUT_MS, 'main.ts to exit after SIGTERM');
      expect(exit, `stderr: ${launched.stderr()}`).toEqual({ code: 0, signal: null });
      const messages = launched.stdoutLines().map((line) => parseJson(line)?.msg);
      expect(messages).toContain('Shutting down');
      expect(messages.at(-1)).toBe('Stopped');

      const output = `${launched.stdout()}\n${launched.stderr()}`;
      expect(clientSecretValues(output).filter((value) => value !== '[redacted]')).toEqual([]);
      expect(output).not.toMatch(/Bearer\s+[\w.~+/-]{8,}/);
    },
    READY_TIMEOUT_MS + 10_000,
  );

  it.for([
    [{ GRAPHIQL: 'false' }, ''],
    [{ TRUSTED_DOCUMENTS: MANIFEST }, ' (GraphiQL is off: only trusted documents run here)'],
  ] as const)(
    'says it serves GraphQL, not GraphiQL, where GraphiQL is not served (%j)',
    { timeout: READY_TIMEOUT_MS + 5_000 },
    async ([settings, why]) => {
      launched = launchMain({ PORT: '0', ...settings });
      const ready = await readyLine(launched);
      expect(ready).toEqual(
        expect.objectContaining({
          msg: `Gateway ready: GraphQL at ${ready.graphql}${why}`,
          pid: expect.any(Number),
          graphql: expect.any(String),
        }),
      );
      expect(ready).not.toHaveProperty('graphiql');
    },
  );

  it(
    'does not load the embedded lookup service when UPSTREAM_URL is set, nor node-redis without REDIS_URL',
    async () => {
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('UPSTREAM_')));
      const child = spawn(process.execPath, ['--import', 'tsx', '--import', TRACE_MODULES, 'src/main.ts'], {
        cwd: ROOT,
        env: {
          ...env,
          HOST: '127.0.0.1',
          PORT: '0',
          LOG_LEVEL: 'info',
          // Nothing listens there, and nothing is asked of it before the first search.
          UPSTREAM_URL: 'http://127.0.0.1:9',
          UPSTREAM_CLIENT_ID: 'gateway',
          UPSTREAM_CLIENT_SECRET: 'not-used-by-this-test',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
      try {
        const ready = new Promise<void>((resolve, reject) => {
          const look = () => stdout.includes('Gateway ready') && resolve();
          child.stdout.on('data', look);
          void exited.then(() => reject(new Error(`main.ts exited before it was ready: ${stderr}`)));
        });
        await within(ready, READY_TIMEOUT_MS, 'the gateway to be ready');
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      const loaded = stderr.split('\n').filter((line) => line.startsWith('module '));
      // The trace sees the gateway's own modules, so an absent lookup service is absent, not unseen.
      expect(loaded.some((line) => line.endsWith('/src/gateway/server.ts'))).toBe(true);
      expect(loaded.filter((line) => line.includes('/src/lookup-service/'))).toEqual([]);
      // Two leaves of shared-state/ load no node-redis, and are read without it: what REDIS_URL names (by the settings)
      // and why Redis may refuse the gateway (the causes label a metric).
      const leaves = ['/src/shared-state/redis-target.ts', '/src/shared-state/redis-refusals.ts'];
      const redisRoom = loaded.filter((line) => line.includes('/src/shared-state/') && !leaves.some((leaf) => line.endsWith(leaf)));
      expect([...loaded.filter((line) => line.includes('/@redis/')), ...redisRoom]).toEqual([]);
    },
    READY_TIMEOUT_MS + 5_000,
  );

  it('names every address it serves in its ready line, the metrics port it chose among them', {
    timeout: READY_TIMEOUT_MS + 5_000,
  }, async () => {
    launched = launchMain({ PORT: '0', METRICS_PORT: '0', ADMIN_PORT: '0', ADMIN_TOKEN: 'a'.repeat(40) });
    const ready = await readyLine(launched);
    expect(ready.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(ready.metrics as string).port).not.toBe('0');
    expect(new URL(ready.admin as string).port).not.toBe('0');
    expect(ready.msg).toBe(
      `Gateway ready: GraphiQL at ${ready.graphiql}; metrics at ${ready.metrics}; admin server (POST /purge) at ${ready.admin}`,
    );
    expect((await send(ready.metrics as string)).status).toBe(200);
  });

  it('logs for a person with LOG_FORMAT=pretty (as at a terminal): time, level and message first, no JSON', {
    timeout: READY_TIMEOUT_MS + 5_000,
  }, async () => {
    launched = launchMain({ PORT: '0', LOG_FORMAT: 'pretty' });
    const ready = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const line = launched!.stdoutLines().find((entry) => entry.includes('Gateway ready: '));
        if (line !== undefined) resolve(line);
      };
      launched!.child.stdout!.on('data', look);
      void launched!.exited.then(() => reject(new Error(`main.ts exited before it was ready: ${launched!.stderr()}`)));
    });
    // Time, level and message first, as a person reads them; no JSON.
    expect(ready).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: Gateway ready: GraphiQL at http:\/\/127\.0\.0\.1:\d+\/graphql$/);
    expect(launched.stdoutLines().filter((line) => line.startsWith('{'))).toEqual([]);
    expect(launched.stdoutLines()).toContainEqual(expect.stringMatching(/INFO: Configuration: \d+ settings set/));
  });

  it('exits 1 when its port is taken, naming PORT and what to do', { timeout: READY_TIMEOUT_MS + 5_000 }, async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      launched = launchMain({ PORT: String(port) });
      const exit = await within(launched.exited, READY_TIMEOUT_MS, 'main.ts to exit with its port taken');
      expect(exit).toEqual({ code: 1, signal: null });
      expect(launched.stderr()).toContain(
        `Gateway failed to start: PORT=${port}: 127.0.0.1:${port} is already in use (EADDRINUSE) by another process; stop it, or set PORT to a free port (0 lets the system choose one)\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it(
    'exits 1 with a bad setting, naming it on stderr',
    async () => {
      launched = launchMain({ PORT: 'abc' });
      const exit = await within(launched.exited, READY_TIMEOUT_MS, 'main.ts to exit with PORT=abc');
      expect(exit).toEqual({ code: 1, signal: null });
      expect(launched.stderr()).toContain('PORT must be a whole number from 0 to 65535, got "abc"');
      expect(launched.stdout()).toBe('');
    },
    READY_TIMEOUT_MS + 5_000,
  );
});
