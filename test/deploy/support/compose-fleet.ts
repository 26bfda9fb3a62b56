import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { expect } from 'vitest';
import { type Counters, readCounters } from './backends.js';
import { freePort, IMAGE, logLines, PODMAN_ENV, podman, ROOT, run, waitFor } from './containers.js';

export const GATEWAYS = ['gateway-1', 'gateway-2', 'gateway-3'] as const;

/**
 * deploy/compose/compose.yaml as an operator runs it, through deploy/compose/fleet.sh (with `flags` such as
 * --sentinel), plus test/deploy/fixtures/compose.test.yaml: a project, ports and a secrets folder of its own.
 */
export class ComposeFleet {
  readonly project: string;
  readonly secrets = mkdtempSync(join(tmpdir(), 'csg-fleet-secrets-'));
  /** GATEWAY_IMAGE: the image this test run built, or another a test rolls the fleet to. */
  image = IMAGE;
  readonly #flags: string[];
  #ports: { fleet: number; stats: number; prometheus: number; counters: number } | undefined;

  constructor(project: string, flags: string[] = []) {
    this.project = project;
    this.#flags = flags;
  }

  get ports() {
    if (this.#ports === undefined) throw new Error('The fleet has not started');
    return this.#ports;
  }

  /** fleet.sh COMMAND… with this fleet's files, project, ports and secrets. */
  async fleet(...args: string[]) {
    this.#ports ??= { fleet: await freePort(), stats: await freePort(), prometheus: await freePort(), counters: await freePort() };
    const env = {
      ...PODMAN_ENV,
      FLEET_PROJECT: this.project,
      FLEET_SECRETS: this.secrets,
      GATEWAY_IMAGE: this.image,
      FLEET_PORT: String(this.#ports.fleet),
      FLEET_STATS_PORT: String(this.#ports.stats),
      FLEET_PROMETHEUS_PORT: String(this.#ports.prometheus),
      LOOKUP_COUNTERS_PORT: String(this.#ports.counters),
      FIXTURES_DIR: fileURLToPath(new URL('../fixtures', import.meta.url)),
    };
    const test = fileURLToPath(new URL('../fixtures/compose.test.yaml', import.meta.url));
    return run('sh', [`${ROOT}deploy/compose/fleet.sh`, ...this.#flags, '-f', test, ...args], { env });
  }

  /**
   * Redis (and what `redisServices` names) and the upstream first, so that every gateway finds Redis at its start,
   * then the gateways, haproxy and Prometheus; resolves once haproxy has every gateway UP.
   */
  async start(redisServices: string[] = ['redis']): Promise<void> {
    await this.fleet('up', '--no-build', ...redisServices, 'lookup');
    await waitFor('the lookup service', () => this.counters());
    await this.fleet('up', '--no-build', '--no-deps', ...GATEWAYS, 'haproxy', 'prometheus');
    await waitFor('every gateway in the balancer', async () =>
      (await Promise.all(GATEWAYS.map((service) => this.inBalancer(service)))).every((status) => status === 'UP') ? true : undefined,
    );
  }

  container(service: string): string {
    return `${this.project}_${service}_1`;
  }

  /** What the fleet's upstream (the lookup service) has been asked so far. */
  counters(): Promise<Counters> {
    return readCounters(this.ports.counters);
  }

  /** haproxy's view of a gateway: UP, DOWN, MAINT… from its statistics page. */
  async inBalancer(service: string): Promise<string | undefined> {
    const response = await request(`http://127.0.0.1:${this.ports.stats}/stats;csv`);
    const rows = (await response.body.text()).split('\n').map((line) => line.split(','));
    return rows.find((row) => row[0] === 'gateways' && row[1] === service)?.[17];
  }

  /** The fleet's Prometheus, asked from the host. */
  async prometheus<T>(path: string): Promise<T> {
    const response = await request(`http://127.0.0.1:${this.ports.prometheus}${path}`);
    const body = (await response.body.json()) as { status: string; data: T };
    expect(body.status).toBe('success');
    return body.data;
  }

  /** How many lines each gateway has logged so far whose message starts with `msg`. */
  async logged(msg: string): Promise<number[]> {
    return Promise.all(
      GATEWAYS.map(
        async (service) => (await logLines(this.container(service))).filter((entry) => String(entry.msg).startsWith(msg)).length,
      ),
    );
  }

  /** What each gateway logged of its token and of Redis, to tell why the fleet did not share. */
  async sharingLog(): Promise<string> {
    const logs = await Promise.all(
      GATEWAYS.map(async (service) =>
        (await logLines(this.container(service)))
          .filter((line) => /token|Redis|ready|Shutting|Stopped/i.test(String(line.msg)))
          .map((line) => `${service} ${JSON.stringify(line)}`),
      ),
    );
    // And haproxy's word on each gateway taken out or put back (`Server gateways/gateway-1 is DOWN, reason: …`).
    const balancer = await run('podman', ['logs', this.container('haproxy')], { allowFailure: true });
    const changes = `${balancer.stdout}${balancer.stderr}`.split('\n').filter((line) => /is (DOWN|UP)/.test(line));
    return [...logs.flat(), ...changes].join('\n');
  }

  /** `fleet.sh down`, then whatever a failure may have left, by the names this fleet gave. */
  async remove(services: readonly string[]): Promise<void> {
    await this.fleet('down').catch(() => undefined);
    await run('podman', ['rm', '-f', '-t', '0', ...services.map((service) => this.container(service))], { allowFailure: true });
    await run('podman', ['network', 'rm', '-f', `${this.project}_default`], { allowFailure: true });
    await run('podman', ['volume', 'rm', '-f', `${this.project}_prometheus-data`], { allowFailure: true });
    rmSync(this.secrets, { recursive: true, force: true });
  }

  /** What `down` must not leave: the project's containers, networks and volumes. */
  async leftovers(): Promise<string> {
    const label = `label=io.podman.compose.project=${this.project}`;
    return [
      await podman('ps', '--all', '--quiet', '--filter', label),
      await podman('network', 'ls', '--quiet', '--filter', label),
      await podman('volume', 'ls', '--quiet', '--filter', label),
    ].join('');
  }
}
