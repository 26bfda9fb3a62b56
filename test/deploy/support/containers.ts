import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The image the deploy tests build (test/deploy/global-setup.ts) and run; a tag of their own, so no operator's image is replaced. */
export const IMAGE = 'localhost/company-search-gateway:deploy-test';

/** Podman's settings for these machines (scripts/deploy/containers.conf), unless the caller chose their own. */
export const PODMAN_ENV = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? `${ROOT}scripts/deploy/containers.conf` };

export const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end; rejects, with its output, when it fails, unless `allowFailure`. */
export function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; allowFailure?: boolean } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env: options.env ?? PODMAN_ENV, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      if (code !== 0 && !options.allowFailure) {
        reject(new Error(`${command} ${args.join(' ')} failed (${code}):\n${stderr}${stdout}`));
        return;
      }
      resolve({ code, stdout, stderr });
    });
  });
}

export async function podman(...args: string[]): Promise<string> {
  return (await run('podman', args)).stdout.trim();
}

/** A port free on loopback now, for a container's published port (podman needs a number). */
export { freePort } from '../../support/free-port.js';

/**
 * Waits until `check` answers something other than undefined, asking again every `everyMs`: what a container does is
 * seen only through podman and HTTP, so this polls, within a bound far beyond what is expected.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs = 120_000, everyMs = 250 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The gateway's JSON log lines in a container's output so far. */
export async function logLines(container: string): Promise<Record<string, unknown>[]> {
  const { stdout } = await run('podman', ['logs', container]);
  return stdout.split('\n').flatMap((line) => {
    try {
      const entry: unknown = JSON.parse(line);
      return typeof entry === 'object' && entry !== null ? [entry as Record<string, unknown>] : [];
    } catch {
      return [];
    }
  });
}

/** The number of lines a container has logged so far whose message starts with `msg`. */
export async function countLogged(container: string, msg: string): Promise<number> {
  return (await logLines(container)).filter((entry) => String(entry.msg).startsWith(msg)).length;
}

/** `searchCompanies` as a client asks it. */
export function searchBody(q: string): string {
  return JSON.stringify({
    query: 'query Search($q: String!) { searchCompanies(q: $q, jurisdiction: GB, pageSize: 3) { totalCount edges { node { name } } } }',
    variables: { q },
  });
}

/**
 * Runs the image as an operator is told to (docs/deployment.md): detached, read-only with only /tmp writable (no
 * writable /run or /var/tmp, as under Docker or Kubernetes), no capability, no new privileges, its port published on
 * loopback; `options.env` and `options.volumes` (`host:container[:mode]`) on top. Resolves with the gateway's ready
 * line once it is logged.
 */
export async function runHardened(
  name: string,
  port: number,
  options: { env?: Record<string, string>; volumes?: string[] } = {},
): Promise<Record<string, unknown>> {
  const env = Object.entries(options.env ?? {}).flatMap(([variable, value]) => ['-e', `${variable}=${value}`]);
  const volumes = (options.volumes ?? []).flatMap((volume) => ['-v', volume]);
  await podman(
    'run',
    '-d',
    '--name',
    name,
    '--read-only',
    '--read-only-tmpfs=false',
    '--tmpfs',
    '/tmp',
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    ...volumes,
    ...env,
    '-p',
    `127.0.0.1:${port}:4000`,
    IMAGE,
  );
  return waitFor('the ready line', async () => (await logLines(name)).find((line) => String(line.msg).startsWith('Gateway ready')));
}
