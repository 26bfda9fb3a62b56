import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeExit, HarnessChild } from './child-process.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/scripted-child.ts', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'harness-'));
const marker = join(directory, 'closed');

let child: HarnessChild | undefined;
afterEach(() => child?.stop());
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const spawnChild = async () => {
  child = await HarnessChild.spawn({ name: 'scripted', script: SCRIPT, env: { ...process.env, CLOSED_MARKER: marker } });
  return child;
};

describe('a harness child', () => {
  it('answers calls by id, and a call it never answers fails after its timeout, naming the call', async () => {
    const scripted = await spawnChild();
    const [first, second] = await Promise.all([scripted.call('echo', { n: 1 }), scripted.call('echo', { n: 2 })]);
    expect([first, second]).toEqual([{ n: 1 }, { n: 2 }]);
    await expect(scripted.call('hang', undefined, 100)).rejects.toThrow('scripted did not answer hang within 100 ms');
    expect(await scripted.call('echo', 'still serving')).toBe('still serving');
  });

  it('reports an uncaught error before it dies: its exit names the error, and later calls fail at once', async () => {
    const scripted = await spawnChild();
    expect(await scripted.call('crash')).toBe('crashing');
    const exit = await scripted.exited;
    expect(exit.crash).toMatchObject({ origin: 'uncaughtException', error: expect.stringContaining('Error: scripted failure') });
    expect(describeExit(exit)).toMatch(/^code 70: uncaughtException: Error: scripted failure/);
    await expect(scripted.call('echo', 1)).rejects.toThrow('scripted is not running');
  });

  it('finishes what its close step does when stopped, and exits cleanly', async () => {
    rmSync(marker, { force: true });
    const scripted = await spawnChild();
    await scripted.stop();
    expect(await scripted.exited).toEqual({ how: 'code 0', crash: undefined });
    expect(readFileSync(marker, 'utf8')).toBe('closed');
  });
});
