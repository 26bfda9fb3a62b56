import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeConfig, MAX_SECRET_FILE_BYTES, readConfig } from '../../../src/gateway/config/gateway-config.js';
import { SETTING_GROUPS } from '../../../src/gateway/config/settings.js';
import { REDIS_URL_FORMS } from '../../../src/shared-state/redis-target.js';
import { problemsOf } from '../../support/config-problems.js';
import { startStack } from '../../support/stack.js';

const dir = mkdtempSync(join(tmpdir(), 'secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A real file holding `content`, as a mounted secret is. */
function secretFile(content: string): string {
  const path = join(dir, `secret-${++files}`);
  writeFileSync(path, content);
  return path;
}

const API_KEY = 'api-key-0123456789abcdef0123456789abcdef';
const JWT_SECRET = 'jwt-secret-0123456789abcdef0123456789';

/** Each secret with a valid value and the settings it needs beside it. */
const SECRETS: Record<string, { value: string; with: Record<string, string> }> = {
  UPSTREAM_CLIENT_SECRET: {
    value: 'client-secret-0123456789',
    with: { UPSTREAM_URL: 'https://lookup.example.com', UPSTREAM_CLIENT_ID: 'gateway' },
  },
  GATEWAY_API_KEYS: { value: `web:${API_KEY}`, with: {} },
  JWT_SECRET: { value: JWT_SECRET, with: { JWT_ISSUER: 'https://auth.example.com/', JWT_AUDIENCE: 'company-search' } },
  REDIS_URL: { value: 'redis://gateway:redis-password-0123@redis.internal:6379/0', with: {} },
  REDIS_SENTINEL_PASSWORD: { value: 'sentinel-password-0123', with: { REDIS_URL: 'redis-sentinel://sentinel.internal/mymaster' } },
  ADMIN_TOKEN: { value: 'admin-token-0123456789abcdef0123456789', with: { ADMIN_PORT: '9465' } },
};

describe('a secret from a file', () => {
  it('is offered for exactly the settings declared secret', () => {
    const secrets = SETTING_GROUPS.flatMap(({ settings }) => Object.values(settings))
      .filter((setting) => 'secret' in setting && setting.secret)
      .map((setting) => setting.env);
    expect(secrets).toEqual(Object.keys(SECRETS));
  });

  it.each(Object.entries(SECRETS))('reads %s_FILE as %s itself, less the final newline', (name, { value, with: companions }) => {
    const fromValue = readConfig({ ...companions, [name]: value });
    expect(readConfig({ ...companions, [`${name}_FILE`]: secretFile(`${value}\n`) })).toEqual(fromValue);
    expect(readConfig({ ...companions, [`${name}_FILE`]: secretFile(`${value}\r\n`) })).toEqual(fromValue);
    expect(readConfig({ ...companions, [`${name}_FILE`]: secretFile(value) })).toEqual(fromValue);
    const printed = JSON.stringify(describeConfig(readConfig({ ...companions, [`${name}_FILE`]: secretFile(value) })));
    for (const secret of ['client-secret-0123456789', API_KEY, JWT_SECRET, 'redis-password-0123', 'sentinel-password-0123']) {
      expect(printed).not.toContain(secret);
    }
  });

  it('keeps all but the final newline: what else the file holds is the secret', () => {
    const jwt = SECRETS.JWT_SECRET!.with;
    expect(readConfig({ ...jwt, JWT_SECRET_FILE: secretFile(`  ${JWT_SECRET} \n`) }).jwtSecret).toBe(`  ${JWT_SECRET} `);
    expect(readConfig({ ...jwt, JWT_SECRET_FILE: secretFile(`${JWT_SECRET}\n\n`) }).jwtSecret).toBe(`${JWT_SECRET}\n`);
  });

  it('is refused beside a value, in one line naming both variables', () => {
    const path = secretFile(JWT_SECRET);
    const both = { ...SECRETS.JWT_SECRET!.with, JWT_SECRET: JWT_SECRET, JWT_SECRET_FILE: path };
    expect(problemsOf(both)).toEqual(['Set JWT_SECRET or JWT_SECRET_FILE, not both']);
    expect(problemsOf({ NODE_ENV: 'production', ...both })).toEqual(['Set JWT_SECRET or JWT_SECRET_FILE, not both']);
    // A blank value is unset, as everywhere.
    expect(readConfig({ ...SECRETS.JWT_SECRET!.with, JWT_SECRET: ' ', JWT_SECRET_FILE: path }).jwtSecret).toBe(JWT_SECRET);
  });

  it('that cannot be read is one line naming the variable, the path and why, and no other line', () => {
    const missing = join(dir, 'missing');
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const upstream = SECRETS.UPSTREAM_CLIENT_SECRET!.with;
    expect(problemsOf({ ...upstream, UPSTREAM_CLIENT_SECRET_FILE: missing })).toEqual([
      `UPSTREAM_CLIENT_SECRET_FILE: cannot read ${missing}: no such file or directory (ENOENT)`,
    ]);
    expect(problemsOf({ ...upstream, UPSTREAM_CLIENT_SECRET_FILE: folder })).toEqual([
      `UPSTREAM_CLIENT_SECRET_FILE: ${folder} is a directory, not a regular file`,
    ]);
    // Production wants client access decided; a key set in a file that cannot be read has its own line instead.
    expect(problemsOf({ NODE_ENV: 'production', GATEWAY_API_KEYS_FILE: missing })).toEqual([
      `GATEWAY_API_KEYS_FILE: cannot read ${missing}: no such file or directory (ENOENT)`,
    ]);
    expect(problemsOf({ ...SECRETS.JWT_SECRET!.with, JWT_SECRET_FILE: missing })).toEqual([
      `JWT_SECRET_FILE: cannot read ${missing}: no such file or directory (ENOENT)`,
    ]);
  });

  it('that is a named pipe or a device is refused unread, in one line: reading it would hold the start', () => {
    const pipe = join(dir, 'a-pipe');
    execFileSync('mkfifo', [pipe]);
    // Nothing ever writes to the pipe: a reader that opened it to read would wait for ever, and the test with it.
    expect(problemsOf({ GATEWAY_API_KEYS_FILE: pipe })).toEqual([`GATEWAY_API_KEYS_FILE: ${pipe} is a named pipe, not a regular file`]);
    expect(problemsOf({ REDIS_URL_FILE: '/dev/zero' })).toEqual(['REDIS_URL_FILE: /dev/zero is a device, not a regular file']);
  });

  it('that is larger than its bound is refused unread, in one line naming the variable and the bound', () => {
    const jwt = SECRETS.JWT_SECRET!.with;
    const limit = MAX_SECRET_FILE_BYTES;
    expect(readConfig({ ...jwt, JWT_SECRET_FILE: secretFile('s'.repeat(limit)) }).jwtSecret).toHaveLength(limit);
    const large = secretFile('s'.repeat(limit + 1));
    expect(problemsOf({ ...jwt, JWT_SECRET_FILE: large })).toEqual([
      `JWT_SECRET_FILE: ${large} is larger than ${limit} bytes, the most it may hold`,
    ]);
    // A list of API keys may be longer: some ten thousand keys.
    const keys = Array.from({ length: 2_000 }, (_, n) => `client-${n}:${API_KEY}${String(n).padStart(8, '0')}`).join(',');
    expect(keys.length).toBeGreaterThan(limit);
    expect(readConfig({ GATEWAY_API_KEYS_FILE: secretFile(keys) }).apiKeys).toHaveLength(2_000);
    const tooMany = secretFile(`${keys},${'x'.repeat(1024 * 1024)}`);
    expect(problemsOf({ GATEWAY_API_KEYS_FILE: tooMany })).toEqual([
      `GATEWAY_API_KEYS_FILE: ${tooMany} is larger than ${1024 * 1024} bytes, the most it may hold`,
    ]);
  });

  it('that is empty is one line naming it', () => {
    const empty = secretFile('\n');
    expect(problemsOf({ REDIS_URL_FILE: empty })).toEqual([`REDIS_URL_FILE: ${empty} is empty`]);
  });

  it('is checked as a value would be, without quoting what the file holds', () => {
    const problems = problemsOf({
      GATEWAY_API_KEYS_FILE: secretFile(`web:${API_KEY},${API_KEY}\n`),
      REDIS_URL_FILE: secretFile('http://gateway:redis-password-0123@redis.internal\n'),
      JWT_SECRET_FILE: secretFile('short\n'),
      ...SECRETS.JWT_SECRET!.with,
    });
    expect(problems).toEqual([
      'GATEWAY_API_KEYS entry 2 must be id:key: a name for the client (used in logs and rate limits), a colon, then the key, such as web:<the output of openssl rand -hex 32>',
      'JWT_SECRET must be at least 32 characters long',
      `REDIS_URL must be one of ${REDIS_URL_FORMS}`,
    ]);
    expect(problems.join('\n')).not.toMatch(/api-key-|redis-password|short/);
  });

  it('is not read for a setting that is no secret', () => {
    expect(readConfig({ PORT_FILE: secretFile('8080\n') }).port).toBe(4000);
  });

  it('lets the gateway take the API keys it holds', async () => {
    const config = readConfig({ GATEWAY_API_KEYS_FILE: secretFile(`web:${API_KEY}\n`) });
    const stack = await startStack({ gateway: { apiKeys: config.apiKeys, allowAnonymous: config.allowAnonymous } });
    try {
      expect((await stack.post({ query: '{ __typename }' }, { 'x-api-key': API_KEY })).status).toBe(200);
      expect((await stack.post({ query: '{ __typename }' }, { 'x-api-key': `${API_KEY}x` })).status).toBe(401);
      expect((await stack.post({ query: '{ __typename }' })).status).toBe(401);
    } finally {
      await stack.close();
    }
  });
});
