import { chmodSync, linkSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { MountedVolume } from '../support/mounted-volume.js';
import { within } from '../support/within.js';
import { freePort, logLines, podman, run, runHardened, searchBody, waitFor } from './support/containers.js';
import { startLoad } from './support/load.js';

const NAME = `csg-secret-files-test-${process.pid}`;
const SAFETY_MS = 180_000;
const KEYS = {
  first: 'first-key-of-the-secret-files-test-0000000001',
  second: 'second-key-of-the-secret-files-test-000000002',
  third: 'third-key-of-the-secret-files-test-0000000003',
};
const keyList = (...ids: (keyof typeof KEYS)[]) => `${ids.map((id) => `${id}:${KEYS[id]}`).join(',')}\n`;

/**
 * The container as Kubernetes runs it with a mounted Secret: read-only, no capability, the API keys from a file in a
 * folder laid out as kubelet lays it out (test/support/mounted-volume.ts), bind-mounted from the host, where the test
 * rotates the key. The gateway process's own reload is tested in test/gateway/reload/; this shows it holds in the
 * image: file events through the mount, SIGHUP through the image's init.
 */
describe('secrets from files in the container', () => {
  const root = mkdtempSync(join(tmpdir(), 'csg-secret-files-'));
  /** A hard link to the keys file, on the same file system but outside the mounted folder: no watch of the gateway's hears it. */
  const elsewhere = mkdtempSync(join(tmpdir(), 'csg-secret-files-elsewhere-'));
  const unwatched = join(elsewhere, 'gateway-api-keys');
  // The container's user (uid 1000) reads the folder mounted at /etc/company-search.
  chmodSync(root, 0o755);
  /** The Secret in use is `current`, a link to one of the volumes, swapped as a deploy tool that keeps versions does. */
  const pointTo = (volume: string) => {
    symlinkSync(volume, join(root, 'next'));
    renameSync(join(root, 'next'), join(root, 'current'));
  };

  afterAll(async () => {
    await run('podman', ['rm', '-f', '-t', '0', NAME], { allowFailure: true });
    rmSync(root, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('takes its API keys from a file, and honours a key rotated by a ..data swap, a link swapped and SIGHUP under load, with no failed request', async () => {
    const volume = new MountedVolume(join(root, 'a'), { 'gateway-api-keys': keyList('first') });
    pointTo('a');
    const port = await freePort();
    await runHardened(NAME, port, {
      volumes: [`${root}:/etc/company-search:ro`],
      env: {
        NODE_ENV: 'production',
        GATEWAY_API_KEYS_FILE: '/etc/company-search/current/gateway-api-keys',
        SHUTDOWN_DRAIN_DELAY_MS: '0',
        // One client per key, far over any sensible rate: this test is about keys, not rates.
        RATE_LIMIT_PER_MINUTE: '0',
      },
    });
    const base = `http://127.0.0.1:${port}`;
    const status = async (key?: string) =>
      (
        await request(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
          body: searchBody('acme'),
        })
      ).statusCode;
    expect(await status(KEYS.first)).toBe(200);
    expect(await status()).toBe(401);
    expect(await status(KEYS.second)).toBe(401);

    const reloaded = async (prefix: string, after: number) =>
      // Info and above: a reload that changed nothing logs at debug.
      waitFor(`"${prefix}"`, async () =>
        (await logLines(NAME)).slice(after).find((line) => String(line.msg).startsWith(prefix) && (line.level as number) >= 30),
      );
    let key = KEYS.first;
    const load = startLoad(base, { headers: () => ({ 'x-api-key': key }) });
    try {
      await within(load.more(50), SAFETY_MS, 'traffic before the rotation');

      // Kubernetes updates the Secret: a new ..data link, no signal.
      let mark = (await logLines(NAME)).length;
      volume.update({ 'gateway-api-keys': keyList('first', 'second') });
      expect((await reloaded('Reload', mark)).msg).toBe('Reloaded on a file change: GATEWAY_API_KEYS_FILE (added second)');
      key = KEYS.second;
      await within(load.more(50), SAFETY_MS, 'traffic on the second key');

      // A link above the Secret's folder swapped: the folder holding it is watched too.
      const b = new MountedVolume(join(root, 'b'), { 'gateway-api-keys': keyList('second', 'third') });
      mark = (await logLines(NAME)).length;
      pointTo('b');
      expect((await reloaded('Reload', mark)).msg).toBe('Reloaded on a file change: GATEWAY_API_KEYS_FILE (added third; removed first)');
      key = KEYS.third;
      await within(load.more(50), SAFETY_MS, 'traffic on the third key');

      // A change no watch hears, as on a file system without events (written through a hard link outside the mount),
      // then SIGHUP through the image's init.
      linkSync(realpathSync(b.path('gateway-api-keys')), unwatched);
      writeFileSync(unwatched, keyList('third'));
      mark = (await logLines(NAME)).length;
      await podman('kill', '--signal', 'HUP', NAME);
      expect((await reloaded('Reload', mark)).msg).toBe('Reloaded on SIGHUP: GATEWAY_API_KEYS_FILE (removed second)');
      await within(load.more(50), SAFETY_MS, 'traffic after the signal');
    } finally {
      const { answered, failures } = await load.stop();
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThanOrEqual(150);
    }
    expect(await status(KEYS.first)).toBe(401);
    expect(await status(KEYS.second)).toBe(401);
    expect(await status(KEYS.third)).toBe(200);
    // No key is ever logged.
    const log = (await run('podman', ['logs', NAME])).stdout;
    for (const secret of Object.values(KEYS)) expect(log).not.toContain(secret);
  });
});
