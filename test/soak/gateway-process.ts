import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, GatewayStats, ParentMessage } from './protocol.js';
import type { SoakGatewaySettings } from './settings.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD_SCRIPT = fileURLToPath(new URL('./gateway-child.ts', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STATS_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 15_000;

/** Every gateway child still running; killed when the soak run exits, however it exits. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface Crash {
  at: Date;
  origin: string;
  error: string;
}

export interface GatewayTarget {
  upstream: { url: string; clientId: string; clientSecret: string };
  settings: SoakGatewaySettings;
}

/**
 * The gateway in a child process. When it dies, the death is recorded as a
 * crash and a new child takes its place, so the run goes on and reports
 * every crash rather than stopping at the first.
 */
export class GatewayProcess {
  readonly crashes: Crash[] = [];
  #child: ChildProcess | undefined;
  #graphqlUrl = '';
  #stopping = false;
  #nextId = 1;
  readonly #pending = new Map<number, (stats: GatewayStats) => void>();

  private constructor(private readonly target: GatewayTarget) {}

  static async start(target: GatewayTarget): Promise<GatewayProcess> {
    const gateway = new GatewayProcess(target);
    await gateway.#spawn();
    return gateway;
  }

  /** The current child's /graphql URL; it changes when a crashed child is replaced. */
  get graphqlUrl(): string {
    return this.#graphqlUrl;
  }

  /** Memory and log counts of the current child, after a full GC when `gc` is set. */
  stats(gc: boolean): Promise<GatewayStats> {
    const child = this.#child;
    if (!child) return Promise.reject(new Error('The gateway child is not running'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`The gateway child did not report its stats within ${STATS_TIMEOUT_MS} ms`));
      }, STATS_TIMEOUT_MS);
      this.#pending.set(id, (stats) => {
        clearTimeout(timer);
        resolve(stats);
      });
      child.send({ type: 'stats', id, gc } satisfies ParentMessage);
    });
  }

  /** Asks the child to shut down gracefully; kills it when it takes too long. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  async #spawn(): Promise<void> {
    const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', CHILD_SCRIPT], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    running.add(child);
    this.#child = child;
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', (line) => process.stderr.write(`[gateway] ${line}\n`));
    }
    let lastCrash: Crash | undefined;
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'crash') {
        lastCrash = { at: new Date(), origin: message.origin, error: message.error };
      } else if (message.type === 'stats') {
        this.#pending.get(message.id)?.(message.stats);
        this.#pending.delete(message.id);
      }
    });
    const ready = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`The gateway child did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      child.on('message', (message: ChildMessage) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve(message.graphqlUrl);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(`The gateway child exited while starting (${signal ?? `code ${code}`})${lastCrash ? `: ${lastCrash.error}` : ''}`),
        );
      });
    });
    child.once('exit', (code, signal) => {
      running.delete(child);
      if (this.#stopping || this.#child !== child) return;
      this.crashes.push(lastCrash ?? { at: new Date(), origin: 'exit', error: `exited with ${signal ?? `code ${code}`}` });
      process.stderr.write(`[soak] the gateway child died (${signal ?? `code ${code}`}); starting a new one\n`);
      this.#spawn().catch((error: unknown) => {
        process.stderr.write(`[soak] could not restart the gateway: ${error instanceof Error ? error.message : String(error)}\n`);
      });
    });
    child.send({ type: 'start', ...this.target } satisfies ParentMessage);
    this.#graphqlUrl = await ready;
  }
}
