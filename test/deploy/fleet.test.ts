import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from '../support/within.js';
import { countLogged, freePort, IMAGE, logLines, PODMAN_ENV, podman, ROOT, run, searchBody, waitFor } from './support/containers.js';
import { startLoad } from './support/load.js';

/** deploy/compose/compose.yaml as an operator runs it, with the test's additions (fixtures/compose.test.yaml). */
const PROJECT = `csgfleet${process.pid}`;
const COMPOSE_FILES = [
  '-f',
  `${ROOT}deploy/compose/compose.yaml`,
  '-f',
  fileURLToPath(new URL('./fixtures/compose.test.yaml', import.meta.url)),
];
const GATEWAYS = ['gateway-1', 'gateway-2', 'gateway-3'] as const;
const SERVICES = ['redis', 'lookup', ...GATEWAYS, 'haproxy'] as const;
const SAFETY_MS = 180_000;

const container = (service: (typeof SERVICES)[number]) => `${PROJECT}_${service}_1`;
let ports: { fleet: number; stats: number; counters: number };
let composeEnv: NodeJS.ProcessEnv;

function compose(...args: string[]) {
  return run('podman-compose', ['-p', PROJECT, ...COMPOSE_FILES, ...args], { env: composeEnv });
}

interface Counters {
  tokenRequests: number;
  searchRequests: number;
  searchQueries: string[];
}

/** What the fleet's upstream (the lookup service) has been asked so far. */
async function counters(): Promise<Counters> {
  const response = await request(`http://127.0.0.1:${ports.counters}/`);
  return (await response.body.json()) as Counters;
}

/** haproxy's view of a gateway: UP, DOWN, MAINT… from its statistics page. */
async function inBalancer(service: string): Promise<string | undefined> {
  const response = await request(`http://127.0.0.1:${ports.stats}/stats;csv`);
  const rows = (await response.body.text()).split('\n').map((line) => line.split(','));
  return rows.find((row) => row[0] === 'gateways' && row[1] === service)?.[17];
}

/** What each gateway logged of its token and of Redis, to tell why the fleet did not share. */
async function sharingLog(): Promise<string> {
  const logs = await Promise.all(
    GATEWAYS.map(async (service) =>
      (await logLines(container(service)))
        .filter((line) => /token|Redis|ready|Shutting|Stopped/i.test(String(line.msg)))
        .map((line) => `${service} ${JSON.stringify(line)}`),
    ),
  );
  return logs.flat().join('\n');
}

const allUp = async () => ((await Promise.all(GATEWAYS.map(inBalancer))).every((status) => status === 'UP') ? true : undefined);

describe('the fleet of deploy/compose/compose.yaml: Redis, three gateways and haproxy', () => {
  beforeAll(async () => {
    ports = { fleet: await freePort(), stats: await freePort(), counters: await freePort() };
    composeEnv = {
      ...PODMAN_ENV,
      GATEWAY_IMAGE: IMAGE,
      FLEET_PORT: String(ports.fleet),
      FLEET_STATS_PORT: String(ports.stats),
      LOOKUP_COUNTERS_PORT: String(ports.counters),
      FIXTURES_DIR: fileURLToPath(new URL('./fixtures', import.meta.url)),
    };
    // Redis and the upstream first, so that every gateway finds Redis at its start and the fleet asks for one token.
    await compose('up', '-d', '--no-build', 'redis', 'lookup');
    await waitFor('the lookup service', counters);
    await compose('up', '-d', '--no-build', '--no-deps', ...GATEWAYS, 'haproxy');
    await waitFor('every gateway in the balancer', allUp);
  });

  afterAll(async () => {
    await compose('down', '-t', '20').catch(() => undefined);
    // What podman-compose leaves, by the names this test gave.
    await run('podman', ['rm', '-f', '-t', '0', ...SERVICES.map(container)], { allowFailure: true });
    await run('podman', ['network', 'rm', '-f', `${PROJECT}_default`], { allowFailure: true });
  });

  it('loses no request through the balancer while the gateways restart one at a time on SIGTERM, with one token call for the fleet', async () => {
    expect((await counters()).tokenRequests, await sharingLog()).toBe(1);
    const load = startLoad(`http://127.0.0.1:${ports.fleet}`);
    try {
      await within(load.more(50), SAFETY_MS, 'traffic before the restarts');
      for (const service of GATEWAYS) {
        const name = container(service);
        // podman stop sends the image's stop signal, SIGTERM, and SIGKILL only after 30 s.
        await podman('stop', '-t', '30', name);
        expect(await podman('inspect', '--format', '{{.State.ExitCode}}', name)).toBe('0');
        const lines = await logLines(name);
        expect(lines.filter((line) => line.msg === 'Shutting down').at(-1)).toEqual(expect.objectContaining({ signal: 'SIGTERM' }));
        expect(lines.at(-1)?.msg).toBe('Stopped');
        await within(load.more(20), SAFETY_MS, `traffic while ${service} is stopped`);
        await podman('start', name);
        await waitFor(`${service} back in the balancer`, async () => ((await inBalancer(service)) === 'UP' ? true : undefined));
        await within(load.more(20), SAFETY_MS, `traffic after ${service} is back`);
      }
    } finally {
      const { answered, failures } = await load.stop();
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(200);
    }
    expect((await counters()).tokenRequests, await sharingLog()).toBe(1);
  });

  it('loses no request while Redis is killed and started again, and the fleet shares again once it is back', async () => {
    const redis = container('redis');
    const outages = await Promise.all(GATEWAYS.map((service) => countLogged(container(service), 'Redis unavailable')));
    const returns = await Promise.all(GATEWAYS.map((service) => countLogged(container(service), 'Redis is back')));
    const load = startLoad(`http://127.0.0.1:${ports.fleet}`);
    try {
      await within(load.more(50), SAFETY_MS, 'traffic before Redis is killed');
      await podman('kill', '--signal', 'KILL', redis);
      await waitFor('every gateway to find Redis gone', async () => {
        const now = await Promise.all(GATEWAYS.map((service) => countLogged(container(service), 'Redis unavailable')));
        return now.every((count, index) => count > outages[index]!) ? true : undefined;
      });
      await within(load.more(100), SAFETY_MS, 'traffic while Redis is away');
      await podman('start', redis);
      await waitFor('every gateway to find Redis back', async () => {
        const now = await Promise.all(GATEWAYS.map((service) => countLogged(container(service), 'Redis is back')));
        return now.every((count, index) => count > returns[index]!) ? true : undefined;
      });
      await within(load.more(50), SAFETY_MS, 'traffic once Redis is back');
    } finally {
      const { failures } = await load.stop();
      expect(failures).toEqual([]);
    }

    // Sharing again: a search new to the fleet, asked of each gateway in turn through the balancer, is fetched once.
    const q = `shared again ${process.pid}`;
    const requestIds = GATEWAYS.map((_, index) => `fleet-shares-${process.pid}-${index}`);
    for (const requestId of requestIds) {
      const response = await request(`http://127.0.0.1:${ports.fleet}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body: searchBody(q),
      });
      const body = (await response.body.json()) as { errors?: unknown };
      expect(response.statusCode).toBe(200);
      expect(body.errors).toBeUndefined();
    }
    // Each gateway answered one (their access lines reach the log within a second).
    const answeredBy = async () =>
      Promise.all(
        GATEWAYS.map(
          async (service) =>
            (await logLines(container(service))).filter((line) => line.msg === 'request' && requestIds.includes(line.requestId as string))
              .length,
        ),
      );
    await waitFor('the access lines of the three requests', async () =>
      (await answeredBy()).reduce((a, b) => a + b) === 3 ? true : undefined,
    );
    expect(await answeredBy()).toEqual([1, 1, 1]);
    const calls = (await counters()).searchQueries.filter((query) => new URLSearchParams(query).get('q') === q);
    expect(calls).toHaveLength(1);
  });
});
