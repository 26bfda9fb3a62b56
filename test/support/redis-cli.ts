import { execFile } from 'node:child_process';
import { setTimeout as pause } from 'node:timers/promises';
import { promisify } from 'node:util';
import { SAFETY_MS, within } from './within.js';

const run = promisify(execFile);

/**
 * redis-cli against the Redis (or sentinel) on loopback `port`: one command, its output. Asynchronous, so that the
 * gateways a test runs in its own process keep answering meanwhile.
 */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
  return stdout;
}

/** How often `until` asks again. */
const LOOK_EVERY_MS = 50;

/**
 * Resolves once `check` holds, asking again every LOOK_EVERY_MS: for the state of Redis processes (a failover done,
 * a cluster ok), which tell no one when it changes. A check that throws (a node not answering yet) counts as not yet.
 */
export function until(check: () => Promise<boolean>, what: string): Promise<void> {
  let stopped = false;
  const looking = (async () => {
    while (!stopped) {
      if (await check().catch(() => false)) return;
      await pause(LOOK_EVERY_MS);
    }
  })();
  return within(looking, SAFETY_MS, what).finally(() => {
    stopped = true;
  });
}
