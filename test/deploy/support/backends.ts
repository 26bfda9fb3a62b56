import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { freePort, IMAGE, podman, ROOT, run, waitFor } from './containers.js';

/** The Redis image the compose file names: on machines with no registry, the stand-in that behaves as it does. */
export const REDIS_IMAGE = 'docker.io/library/redis:7.0-bookworm';

/** What the fleet's upstream (the lookup service of fixtures/lookup-with-counters.mjs) has been asked so far. */
export interface Counters {
  tokenRequests: number;
  searchRequests: number;
  searchQueries: string[];
}

export async function readCounters(port: number): Promise<Counters> {
  const response = await request(`http://127.0.0.1:${port}/`);
  return (await response.body.json()) as Counters;
}

/** The calls made for the search `q` (a fleet that shares makes one per distinct search). */
export function searchesFor(counters: Counters, q: string): string[] {
  return counters.searchQueries.filter((query) => new URLSearchParams(query).get('q') === q);
}

/** The gateway's ACL rules (deploy/compose/redis-gateway.acl), as the compose fleet's Redis has them. */
export function gatewayAclRules(): string {
  return readFileSync(`${ROOT}deploy/compose/redis-gateway.acl`, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .join(' ');
}

export interface Backends {
  /** The podman network the pods join, on which `redisHost` and `lookupHost` resolve. */
  readonly network: string;
  readonly redisHost: string;
  readonly lookupHost: string;
  counters(): Promise<Counters>;
  stop(): Promise<void>;
}

/**
 * What a Kubernetes example needs around it, as containers on a podman network of their own: Redis with the gateway's
 * ACL user (password `redisPassword`), run as the compose fleet runs it, and the lookup service with its counters
 * published on loopback. Pods played with `--network` reach both by name.
 */
export async function startBackends(
  name: string,
  credentials: { redisPassword: string; clientId: string; clientSecret: string },
): Promise<Backends> {
  const network = `${name}-net`;
  const redisHost = `${name}-redis`;
  const lookupHost = `${name}-lookup`;
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const stop = async () => {
    await run('podman', ['rm', '-f', '-t', '0', redisHost, lookupHost], { allowFailure: true });
    await run('podman', ['network', 'rm', '-f', network], { allowFailure: true });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await podman('network', 'create', network);
    const acl = join(dir, 'redis-users.acl');
    const hash = createHash('sha256').update(credentials.redisPassword).digest('hex');
    writeFileSync(acl, `user default off\nuser gateway on #${hash} ${gatewayAclRules()}\n`);
    // Read by Redis' user (999) through the bind mount.
    chmodSync(acl, 0o644);
    const hardened = ['--read-only', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--network', network];
    await podman(
      'run',
      '-d',
      '--name',
      redisHost,
      ...hardened,
      '--user',
      '999:999',
      '--tmpfs',
      '/data',
      '-v',
      `${acl}:/run/secrets/redis-users.acl:ro`,
      REDIS_IMAGE,
      'redis-server',
      '--aclfile',
      '/run/secrets/redis-users.acl',
      '--save',
      '',
      '--appendonly',
      'no',
    );
    const countersPort = await freePort();
    const fixture = fileURLToPath(new URL('../fixtures/lookup-with-counters.mjs', import.meta.url));
    await podman(
      'run',
      '-d',
      '--name',
      lookupHost,
      ...hardened,
      '--no-healthcheck',
      '-e',
      `LOOKUP_CLIENT_ID=${credentials.clientId}`,
      '-e',
      `LOOKUP_CLIENT_SECRET=${credentials.clientSecret}`,
      '-v',
      `${fixture}:/fixtures/lookup-with-counters.mjs:ro`,
      '-p',
      `127.0.0.1:${countersPort}:4011`,
      IMAGE,
      'node',
      '/fixtures/lookup-with-counters.mjs',
    );
    const counters = () => readCounters(countersPort);
    await waitFor('the lookup service', counters);
    return { network, redisHost, lookupHost, counters, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
