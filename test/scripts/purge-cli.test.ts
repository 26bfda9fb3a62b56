import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchTag } from '../../src/upstream/cache-tags.js';
import { DashboardSearchDocument } from '../generated/graphql.js';
import { ADMIN, ADMIN_TOKEN } from '../support/admin.js';
import { startStack, type Stack } from '../support/stack.js';
import { PROCESS_START_MS } from '../support/within.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ZEBRA = { q: 'Zebra Quantum', jurisdiction: 'GB' };

let stack: Stack;
const dir = mkdtempSync(join(tmpdir(), 'purge-cli-'));
beforeAll(async () => {
  stack = await startStack({ gateway: ADMIN });
});
afterAll(async () => {
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `npm run purge -- args` in the gateway's environment (ADMIN_PORT, the token from a file as a mounted secret): its exit code and output. */
async function npmPurge(
  args: string[],
  token = ADMIN_TOKEN,
  settings: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const tokenFile = join(dir, `token-${Math.random()}`);
  writeFileSync(tokenFile, `${token}\n`);
  const { port } = new URL(stack.gateway.adminUrl!);
  const env = { ...process.env, ADMIN_HOST: '127.0.0.1', ADMIN_PORT: port, ADMIN_TOKEN_FILE: tokenFile, ...settings };
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', 'purge', '--', ...args], { cwd: ROOT, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run purge', () => {
  it('purges a search through the admin server, reading the token as the gateway does, and prints what went', {
    timeout: PROCESS_START_MS,
  }, async () => {
    await stack.execute(DashboardSearchDocument, ZEBRA);
    const searches = stack.lookup.counters.searchRequests;
    const run = await npmPurge(['--jurisdiction', 'GB', '--q', 'Zebra Quantum']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ tag: searchTag(ZEBRA), dropped: { windows: 1, answers: 1 } });
    await stack.execute(DashboardSearchDocument, ZEBRA);
    expect(stack.lookup.counters.searchRequests).toBe(searches + 1);
    const logged = stack.logs.map((line) => JSON.parse(line)).find((line) => line.msg === 'Purged');
    expect(logged.by.userAgent).toMatch(/^company-search-gateway purge \(.+@.+\)$/);
  });

  it('exits 1 with the refusal, never printing the token', { timeout: PROCESS_START_MS }, async () => {
    const wrong = `${ADMIN_TOKEN.slice(0, -1)}x`;
    const refused = await npmPurge(['--all'], wrong);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('401 ADMIN_UNAUTHENTICATED');
    expect(refused.stdout + refused.stderr).not.toContain(wrong);
    const nothing = await npmPurge(['--q', 'holdings']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('400 PURGE_TARGET_MISSING: The purge names q without the jurisdiction it belongs to');
    // ADMIN_PORT=0 names no port the command could reach (the gateway chose one): it asks for --url rather than call port 0.
    const chosen = await npmPurge(['--all'], ADMIN_TOKEN, { ADMIN_PORT: '0' });
    expect([chosen.code, chosen.stderr]).toEqual([1, 'ADMIN_PORT=0 lets the gateway choose its port: give --url\n']);
  });
});
