import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from '../support/within.js';
import { REDIS_IMAGE, searchesFor } from './support/backends.js';
import { ComposeFleet, GATEWAYS } from './support/compose-fleet.js';
import { IMAGE, logLines, podman, ROOT, run, searchBody, waitFor } from './support/containers.js';
import { startLoad } from './support/load.js';

const SERVICES = ['redis', 'lookup', ...GATEWAYS, 'haproxy', 'prometheus'] as const;
const SAFETY_MS = 180_000;
const fleet = new ComposeFleet(`csgfleet${process.pid}`);
const ROLLED_IMAGE = `localhost/company-search-gateway:deploy-test-rolled-${process.pid}`;
const container = (service: (typeof SERVICES)[number]) => fleet.container(service);
const counters = () => fleet.counters();
const query = (expression: string) =>
  fleet.prometheus<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
    `/api/v1/query?query=${encodeURIComponent(expression)}`,
  );
let volumesBefore: string[];

describe('the fleet of deploy/compose/compose.yaml: Redis, three gateways, haproxy and Prometheus', () => {
  beforeAll(async () => {
    volumesBefore = (await podman('volume', 'ls', '--quiet')).split('\n');
    await fleet.start();
  });

  afterAll(async () => {
    await fleet.remove(SERVICES);
    await run('podman', ['untag', IMAGE, ROLLED_IMAGE], { allowFailure: true });
  });

  it('runs Redis as its own user with a password, takes every secret from a file, and keeps them out of every container’s configuration', async () => {
    // Redis runs (it does not restart in a loop) and the gateways share through it.
    expect(await podman('inspect', '--format', '{{.State.Status}} {{.RestartCount}} {{.Config.User}}', container('redis'))).toBe(
      'running 0 999:999',
    );
    expect((await counters()).tokenRequests, await fleet.sharingLog()).toBe(1);
    // Without a password, Redis refuses.
    const anonymous = await run('podman', ['exec', container('redis'), 'redis-cli', 'PING'], { allowFailure: true });
    expect(anonymous.stdout).toMatch(/NOAUTH|WRONGPASS|NOPERM/);
    // fleet.sh made random secrets, in a folder only its owner can enter, never in an environment or command line.
    const secrets = ['upstream-client-secret', 'redis-url'].map((file) => readFileSync(join(fleet.secrets, file), 'utf8').trim());
    expect(statSync(fleet.secrets).mode & 0o777).toBe(0o700);
    const password = decodeURIComponent(new URL(secrets[1]!).password);
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    const inspected = await podman('inspect', ...SERVICES.map(container));
    for (const secret of [...secrets, password]) expect(inspected).not.toContain(secret);
    const gatewayEnv = JSON.parse(await podman('inspect', '--format', '{{json .Config.Env}}', container('gateway-1'))) as string[];
    expect(gatewayEnv).toEqual(
      expect.arrayContaining(['UPSTREAM_CLIENT_SECRET_FILE=/run/secrets/upstream-client-secret', 'REDIS_URL_FILE=/run/secrets/redis-url']),
    );
    // The lookup service does not carry the gateway's health check, which it cannot pass.
    expect(await podman('inspect', '--format', '{{json .Config.Healthcheck}}', container('lookup'))).not.toMatch(/health/);
    const lookupLog = (await run('podman', ['logs', container('lookup')])).stdout;
    expect(lookupLog).not.toContain(secrets[0]);
  });

  it('the Redis image behaves as the official one: started as root with no capability, it cannot switch to its user (compose.yaml starts it as that user)', async () => {
    const name = `${fleet.project}-redis-as-root`;
    try {
      const asRoot = await run(
        'podman',
        [
          'run',
          '--rm',
          '--name',
          name,
          '--read-only',
          '--cap-drop',
          'ALL',
          '--security-opt',
          'no-new-privileges',
          REDIS_IMAGE,
          'redis-server',
          '--save',
          '',
        ],
        { allowFailure: true },
      );
      expect(asRoot.code).not.toBe(0);
      expect(asRoot.stderr + asRoot.stdout).toMatch(/failed switching to "redis": operation not permitted/);
    } finally {
      // With its anonymous volume (the image's /data).
      await run('podman', ['rm', '-f', '-v', '-t', '0', name], { allowFailure: true });
    }
  });

  it('loses no request through the balancer during `fleet.sh roll` to another image, which stops each gateway with its stop timeout, with one token call for the fleet', async () => {
    expect((await counters()).tokenRequests, await fleet.sharingLog()).toBe(1);
    // The next version, as far as compose can tell: another name for the image.
    await podman('tag', IMAGE, ROLLED_IMAGE);
    fleet.image = ROLLED_IMAGE;
    const load = startLoad(`http://127.0.0.1:${fleet.ports.fleet}`);
    let output = '';
    try {
      await within(load.more(50), SAFETY_MS, 'traffic before the roll');
      // Traffic goes on while each gateway in turn drains, stops and is made again.
      output = (await within(fleet.fleet('roll'), SAFETY_MS * 3, 'the roll')).stdout;
      await within(load.more(50), SAFETY_MS, 'traffic after the roll');
    } finally {
      const { answered, failures } = await load.stop();
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(100);
    }
    // Each stopped by SIGTERM after its whole drain (longer than podman's default timeout here): exit 0, not 137.
    expect(output.match(/^gateway-\d stopped, exit code \d+$/gm)).toEqual(GATEWAYS.map((service) => `${service} stopped, exit code 0`));
    for (const service of GATEWAYS) {
      expect(await podman('inspect', '--format', '{{.ImageName}}', container(service))).toBe(ROLLED_IMAGE);
      expect((await logLines(container(service))).filter((line) => String(line.msg).startsWith('Gateway ready'))).toHaveLength(1);
    }
    expect((await counters()).tokenRequests, await fleet.sharingLog()).toBe(1);
  });

  it('has Prometheus scrape every gateway with the rules of deploy/prometheus/ loaded, its figures seen from the host', async () => {
    const up = await waitFor('every gateway scraped', async () => {
      const { result } = await query('up{job="company-search-gateway"} == 1');
      return result.length === GATEWAYS.length ? result : undefined;
    });
    expect(up.map(({ metric }) => metric.instance).sort()).toEqual(GATEWAYS.map((service) => `${service}:9464`));
    const ruleFiles = readFileSync(`${ROOT}deploy/prometheus/alerts.yaml`, 'utf8');
    const declared = (load(ruleFiles) as { groups: { name: string; rules: unknown[] }[] }).groups;
    const loaded = await fleet.prometheus<{ groups: { name: string; rules: unknown[] }[] }>('/api/v1/rules');
    // Prometheus lists the groups by file and name.
    const byName = (groups: { name: string; rules: unknown[] }[]) => groups.map(({ name, rules }) => [name, rules.length]).sort();
    expect(byName(loaded.groups)).toEqual(byName(declared));
    // The traffic so far, counted by every gateway, reaches Prometheus.
    const answered = await waitFor('requests counted by all three gateways', async () => {
      const { result } = await query('sum by (instance) (csg_http_requests_total{outcome="graphql"}) > 0');
      return result.length === GATEWAYS.length ? result : undefined;
    });
    expect(answered).toHaveLength(3);
  });

  it('loses no request while Redis is killed and started again, and the fleet shares again once it is back', async () => {
    const redis = container('redis');
    const outages = await fleet.logged('Redis unavailable');
    const returns = await fleet.logged('Redis is back');
    const load = startLoad(`http://127.0.0.1:${fleet.ports.fleet}`);
    try {
      await within(load.more(50), SAFETY_MS, 'traffic before Redis is killed');
      await podman('kill', '--signal', 'KILL', redis);
      await waitFor('every gateway to find Redis gone', async () => {
        const now = await fleet.logged('Redis unavailable');
        return now.every((count, index) => count > outages[index]!) ? true : undefined;
      });
      await within(load.more(100), SAFETY_MS, 'traffic while Redis is away');
      await podman('start', redis);
      await waitFor('every gateway to find Redis back', async () => {
        const now = await fleet.logged('Redis is back');
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
      const response = await request(`http://127.0.0.1:${fleet.ports.fleet}/graphql`, {
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
    expect(searchesFor(await counters(), q)).toHaveLength(1);
  });

  it("`fleet.sh down` removes every container, the network and Prometheus' volume, and leaves no anonymous volume behind", async () => {
    await fleet.fleet('down');
    expect(await fleet.leftovers()).toBe('');
    const volumesAfter = (await podman('volume', 'ls', '--quiet')).split('\n');
    expect(volumesAfter.filter((volume) => !volumesBefore.includes(volume))).toEqual([]);
  });
});
