import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { PROCESS_START_MS, within } from '../support/within.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/stop-on-signal.ts', import.meta.url));
const TIMEOUT_MS = PROCESS_START_MS;

it(
  'stops once on the first SIGINT or SIGTERM, and signals during the stop neither stop it again nor kill it',
  async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    );
    const printed = (text: string) =>
      within(
        new Promise<void>((resolve) => {
          const look = () => output.includes(text) && resolve();
          child.stdout.on('data', look);
          look();
        }),
        TIMEOUT_MS,
        `"${text}" from the child`,
      );
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));

    await printed('ready\n');
    child.kill('SIGINT');
    await printed('stopping on SIGINT\n');
    // Ctrl-C under npm: a second SIGINT, forwarded by npm; then a supervisor's SIGTERM. Both are pending before stdin closes,
    // so the child meets them before it can finish its stop.
    child.kill('SIGINT');
    child.kill('SIGTERM');
    child.stdin.end();

    expect(await within(exited, TIMEOUT_MS, 'the child to exit')).toEqual({ code: 0, signal: null });
    expect(output).toBe('ready\nstopping on SIGINT\nstopped\n');
  },
  2 * PROCESS_START_MS,
);
