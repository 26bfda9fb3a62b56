import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../support/http.js';
import { descendantsOf, isListening, isRunning, type ProcessIdentity } from '../support/processes.js';
import { PROCESS_START_MS, SAFETY_MS, within } from '../support/within.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Safety bounds: the start script compiles first when src/ changed since the last build, which on a busy machine takes a minute. */
const READY_TIMEOUT_MS = PROCESS_START_MS;
const EXIT_TIMEOUT_MS = SAFETY_MS;

interface NpmRun {
  npm: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm <args>` as a person types it, in a process group of its own, so that cleanup reaches whatever it leaves behind. */
function runNpm(args: string[], settings: Record<string, string>): NpmRun {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('UPSTREAM_') && name !== 'NODE_ENV'));
  const npm = spawn('npm', args, {
    cwd: ROOT,
    env: { ...env, HOST: '127.0.0.1', PORT: '0', ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  npm.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { npm, output: () => output, exited };
}

/** The first match of `pattern` in the run's output, once it is there. */
function outputMatch(run: NpmRun, pattern: RegExp): Promise<RegExpMatchArray> {
  const found = new Promise<RegExpMatchArray>((resolve, reject) => {
    const look = () => {
      const match = pattern.exec(run.output());
      if (match !== null) resolve(match);
    };
    run.npm.stdout!.on('data', look);
    run.npm.stderr!.on('data', look);
    void run.exited.then(() => reject(new Error(`npm exited before printing ${pattern}: ${run.output()}`)));
  });
  return within(found, READY_TIMEOUT_MS, `${pattern} in npm's output`);
}

let running: NpmRun | undefined;
afterEach(() => {
  const pid = running?.npm.pid;
  running = undefined;
  if (pid === undefined) return;
  try {
    // The group is npm's, started by this test: whatever is still in it is left over from a failed run.
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Nothing left.
  }
});

/** Signals the run as `how` says and waits for npm to exit; every process npm had started must be gone with it. */
async function stop(run: NpmRun, how: 'SIGTERM to npm' | 'Ctrl-C', processes: ProcessIdentity[]): Promise<{ code: number | null }> {
  if (how === 'SIGTERM to npm') run.npm.kill('SIGTERM');
  // A terminal's Ctrl-C sends SIGINT to every process of the foreground group; npm forwards it to its script as well.
  else process.kill(-run.npm.pid!, 'SIGINT');
  const exit = await within(run.exited, EXIT_TIMEOUT_MS, 'npm to exit');
  expect(processes.filter(isRunning), `processes left running: ${run.output()}`).toEqual([]);
  return exit;
}

/** Modification times of the build's outputs that a compile of any source would rewrite. */
function buildStamps(): Record<string, number> {
  const files = ['dist/.tsbuildinfo', 'dist/main.js', 'dist/gateway/server.js'];
  return Object.fromEntries(files.map((file) => [file, statSync(`${ROOT}${file}`).mtimeMs]));
}

describe('npm start', () => {
  it('compiles nothing when dist/ is current: what npm start runs is the gateway, not a build', {
    timeout: READY_TIMEOUT_MS + EXIT_TIMEOUT_MS,
  }, async () => {
    // Brings dist/ up to date first, as `npm ci` leaves it, so that what follows is the start of a built tree.
    execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'ignore' });
    const before = buildStamps();
    const run = runNpm(['start'], { LOG_LEVEL: 'info' });
    running = run;
    await outputMatch(run, /"msg":"Gateway ready: /);
    // A full tsc, or a build at every start, rewrites these; an incremental check of a current tree reads them only.
    expect(buildStamps()).toEqual(before);
    await stop(run, 'SIGTERM to npm', descendantsOf(run.npm.pid!));
  });

  it.for(['SIGTERM to npm', 'Ctrl-C'] as const)(
    'stops the gateway cleanly on %s, leaving no process and no open port',
    { timeout: READY_TIMEOUT_MS + EXIT_TIMEOUT_MS },
    async (how) => {
      const run = runNpm(['start'], { LOG_LEVEL: 'info' });
      running = run;
      const [line] = await outputMatch(run, /^\{.*"msg":"Gateway ready: [^\n]*\}$/m);
      const ready = JSON.parse(line) as { pid: number; graphql: string };
      const processes = descendantsOf(run.npm.pid!);
      // The gateway is npm's own child: no shell stands between them to swallow the signal.
      expect(processes.map(({ pid }) => pid)).toEqual([ready.pid]);
      expect((await send(ready.graphql.replace(/\/graphql$/, '/health'))).status).toBe(200);

      const exit = await stop(run, how, processes);
      expect(exit, run.output()).toEqual({ code: 0, signal: null });
      expect(await isListening(ready.graphql)).toBe(false);
      expect(run.output()).toMatch(/"msg":"Stopped"/);
    },
  );
});

describe('npm run lookup-service', () => {
  it(
    'stops the lookup service cleanly on SIGTERM to npm, leaving no process and no open port',
    async () => {
      const run = runNpm(['run', 'lookup-service'], {});
      running = run;
      const [, url] = await outputMatch(run, /listening on (http:\/\/127\.0\.0\.1:\d+)\n[\s\S]*ready in \d+ ms\n/);
      const processes = descendantsOf(run.npm.pid!);
      expect(processes).toHaveLength(1);

      const exit = await stop(run, 'SIGTERM to npm', processes);
      expect(exit, run.output()).toEqual({ code: 0, signal: null });
      expect(await isListening(url!)).toBe(false);
      expect(run.output()).toContain('SIGTERM received, closing');
    },
    READY_TIMEOUT_MS + EXIT_TIMEOUT_MS,
  );
});
