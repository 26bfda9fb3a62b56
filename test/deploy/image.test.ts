import { request } from 'undici';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort, IMAGE, logLines, podman, run, runHardened, searchBody, VERSION, waitFor } from './support/containers.js';

const NAME = `csg-image-test-${process.pid}`;
/** Long enough for the checks made while the gateway drains on a busy machine; the stop waits it out. */
const DRAIN_DELAY_MS = 8_000;

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const response = await request(url);
  return { status: response.statusCode, body: await response.body.json() };
}

async function search(
  base: string,
  q: string,
): Promise<{ status: number; body: { data?: { searchCompanies: { totalCount: number } }; errors?: unknown } }> {
  const response = await request(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: searchBody(q),
  });
  return { status: response.statusCode, body: (await response.body.json()) as never };
}

/** The gateway's process's status inside the container (its pid is on the ready line). */
async function processStatus(pid: number): Promise<Record<string, string>> {
  const status = await podman('exec', NAME, 'cat', `/proc/${pid}/status`);
  return Object.fromEntries(status.split('\n').map((line) => line.split(/:\s*/, 2) as [string, string]));
}

describe('the image', () => {
  afterAll(async () => {
    await run('podman', ['rm', '-f', '-t', '0', NAME], { allowFailure: true });
  });

  it('says its version and source revision in OCI labels, checks /health, and runs as a non-root user', async () => {
    const config = JSON.parse(await podman('image', 'inspect', '--format', '{{json .Config}}', IMAGE)) as {
      Labels: Record<string, string>;
      User: string;
      Env: string[];
      ExposedPorts: Record<string, unknown>;
    };
    expect(config.Labels).toEqual(
      expect.objectContaining({ 'org.opencontainers.image.version': VERSION, 'org.opencontainers.image.title': 'company-search-gateway' }),
    );
    // "-dirty" where the tree the image was built from had changes not committed.
    expect(config.Labels['org.opencontainers.image.revision']).toMatch(new RegExp(`^${inject('revision')}(-dirty)?$`));
    // Kept only in the Docker image format (build-image.sh builds with --format docker).
    const healthcheck = JSON.parse(await podman('image', 'inspect', '--format', '{{json .Config.Healthcheck}}', IMAGE)) as {
      Test: string[];
    };
    expect(healthcheck.Test.join(' ')).toMatch(/\/health/);
    expect(config.User).toBe('1000:1000');
    expect(config.Env).toEqual(expect.arrayContaining(['HOST=0.0.0.0', 'PORT=4000']));
    expect(Object.keys(config.ExposedPorts)).toEqual(['4000/tcp']);
    // The build's certificate authority and registry were for the build only.
    expect(config.Env.filter((variable) => /NODE_EXTRA_CA_CERTS|npm_config/i.test(variable))).toEqual([]);
    expect((await run('podman', ['run', '--rm', '--entrypoint', 'ls', IMAGE, '/run/secrets'], { allowFailure: true })).stdout.trim()).toBe(
      '',
    );
  });

  it('runs read-only with no capability, answers a search on the embedded lookup service, then drains on SIGTERM: /ready 503, exit 0', async () => {
    const port = await freePort();
    const ready = await runHardened(NAME, port, { env: { SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_DELAY_MS) } });
    expect(ready).toEqual(expect.objectContaining({ version: VERSION, graphql: 'http://0.0.0.0:4000/graphql' }));
    const base = `http://127.0.0.1:${port}`;

    expect(await get(`${base}/health`)).toEqual({ status: 200, body: { status: 'live' } });
    expect((await get(`${base}/ready`)).status).toBe(200);
    const answer = await search(base, 'acme');
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.searchCompanies.totalCount).toBeGreaterThan(0);
    expect((await run('podman', ['healthcheck', 'run', NAME])).code).toBe(0);

    const status = await processStatus(ready.pid as number);
    expect(status.Uid?.split(/\s+/)).toEqual(['1000', '1000', '1000', '1000']);
    expect([status.CapInh, status.CapPrm, status.CapEff, status.CapBnd, status.CapAmb]).toEqual(Array(5).fill('0000000000000000'));
    expect(status.NoNewPrivs).toBe('1');
    // The image's files cannot be written, even by the gateway's user; the declared /tmp can.
    expect((await run('podman', ['exec', NAME, 'touch', '/app/written'], { allowFailure: true })).stderr).toMatch(/Read-only file system/);
    expect((await run('podman', ['exec', NAME, 'touch', '/tmp/written'])).code).toBe(0);

    await podman('kill', '--signal', 'TERM', NAME);
    await waitFor('the drain', async () => (await logLines(NAME)).find((line) => line.msg === 'Draining: /ready answers 503'));
    expect(await get(`${base}/ready`)).toEqual({ status: 503, body: expect.objectContaining({ status: 'draining' }) });
    // Still serving while the balancer takes it out.
    expect((await search(base, 'holdings')).status).toBe(200);
    expect(await podman('wait', NAME)).toBe('0');
    expect((await logLines(NAME)).at(-1)?.msg).toBe('Stopped');
  });
});
