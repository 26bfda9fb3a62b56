import { type ChildProcess, spawn } from 'node:child_process';
import { expect } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { isListening, stopChild } from './processes.js';
import { send } from './http.js';
import { eventually, within } from './within.js';

/** The VCL operators are given (docs/operations.md), run here as it is but for its backend's port. */
const VCL = new URL('../../deploy/varnish/gateway.vcl', import.meta.url);

/** Starting compiles the VCL with the C compiler: seconds on a busy machine. */
const START_TIMEOUT_MS = 60_000;

/** Debian's Varnish, with varnish-modules' xkey, in front of a gateway: started and stopped by the test, by its PID. */
export interface Varnish {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Purges every object tagged `tag` (the VCL's PURGE with an xkey header); resolves to how many went. */
  purgeTag(tag: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startVarnish(backendUrl: string): Promise<Varnish> {
  const dir = await mkdtemp(join(tmpdir(), 'varnish-'));
  const vcl = (await readFile(VCL, 'utf8')).replace('.port = "4000";', `.port = "${new URL(backendUrl).port}";`);
  await writeFile(join(dir, 'gateway.vcl'), vcl);
  // A free port found may be taken by another process before varnishd binds it: another is tried.
  let started: { child: ChildProcess; port: number } | undefined;
  for (let attempt = 0; started === undefined; attempt++) {
    const port = await freePort();
    try {
      started = { child: await spawnOn(port, dir), port };
    } catch (error) {
      if (attempt >= 4) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  const { child, port } = started;
  const url = `http://127.0.0.1:${port}`;
  // Its child starts listening on the port the manager bound a moment after the manager says it launched it.
  await eventually(async () => expect(await isListening(url)).toBe(true), 20);
  return {
    url,
    async purgeTag(tag) {
      const answer = await send(url, { method: 'PURGE', path: '/', headers: { xkey: tag } });
      const purged = /Purged (\d+)/.exec(answer.text);
      if (answer.status !== 200 || purged === null) throw new Error(`Varnish refused the purge: ${answer.status} ${answer.text}`);
      return Number(purged[1]);
    },
    async stop() {
      await stopChild(child, 'SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** varnishd on `port` with the VCL in `dir`, once it says its child runs; rejects if it exits first. */
async function spawnOn(port: number, dir: string): Promise<ChildProcess> {
  // -F: in the foreground, stopped by its PID; -j none: no user switching; -T none: no management port.
  const args = ['-F', '-j', 'none', '-T', 'none', '-a', `127.0.0.1:${port}`, '-f', join(dir, 'gateway.vcl'), '-n', join(dir, 'work')];
  const child = spawn('varnishd', [...args, '-s', 'malloc,32m'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Child launched OK')) resolve();
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`varnishd exited (${code}) before it was ready:\n${output}`)));
  });
  try {
    await within(ready, START_TIMEOUT_MS, 'varnishd to start');
  } catch (error) {
    await stopChild(child, 'SIGTERM');
    throw error;
  }
  // Its later output is not read: drained, so that it never blocks on a full pipe.
  child.stdout?.removeAllListeners('data').resume();
  child.stderr?.removeAllListeners('data').resume();
  return child;
}
