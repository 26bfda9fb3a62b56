import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tokenRequestFields } from '../../src/upstream/token-request.js';
import { send } from '../support/http.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

function runCli(env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', 'src/lookup-service/main.ts'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

function collect(stream: NodeJS.ReadableStream): { text: () => string } {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { text: () => text };
}

function exitCode(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function waitForOutput(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = pattern.exec(text);
      if (match !== null) {
        child.stdout.off('data', onData);
        resolve(match);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`The CLI exited with ${code} before printing ${pattern}: ${text}`)));
  });
}

describe('npm run lookup-service (main.ts)', () => {
  it('prints its URL and credentials, though not a secret it was given, serves, and closes cleanly on SIGTERM', async () => {
    const child = runCli({ PORT: '0', LOOKUP_CLIENT_ID: 'cli-id', LOOKUP_CLIENT_SECRET: 'cli-secret' });
    const stdout = collect(child.stdout);
    const exited = exitCode(child);
    const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)\n[\s\S]*ready in \d+ ms\n/);
    expect(stdout.text()).toMatch(/client_id: +cli-id\n +client_secret: +\(LOOKUP_CLIENT_SECRET\)\n +\d+ companies \(GB \d+, IE \d+\)/);
    expect(stdout.text()).not.toContain('cli-secret');

    const answer = await send(`${url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(tokenRequestFields({ clientId: 'cli-id', clientSecret: 'cli-secret' })),
    });
    expect(answer.status).toBe(200);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout.text()).toContain('SIGTERM received, closing');
  });

  it.concurrent.for([
    [{ PORT: 'abc' }, 'PORT must be an integer from 0 to 65535, got "abc"'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535, got "70000"'],
    [{ PORT: '' }, 'PORT must not be empty when set'],
    [{ HOST: 'local host' }, 'HOST must be a host name or IP address, got "local host"'],
    [{ PORT: '0', LOOKUP_CLIENT_SECRET: ' ' }, 'LOOKUP_CLIENT_SECRET must not be empty when set'],
  ] as const)('exits 1 with a clear message for %j', async ([env, message], { expect }) => {
    const child = runCli(env);
    const stderr = collect(child.stderr);
    expect(await exitCode(child)).toBe(1);
    expect(stderr.text()).toBe(`${message}\n`);
  });
});
