import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { CpuPlan, Role } from './pinning.js';
import type { CallMessage, ChildMessage } from './protocol.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;

/** Every child still running; killed when this process exits, however it exits. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Pids of the children still running. */
export function childPids(): number[] {
  return [...running].flatMap((child) => (child.pid === undefined ? [] : [child.pid]));
}

export type ChildKind = 'lookup-service' | 'gateway-server' | 'baseline-server' | 'proxy-server';

export interface ChildOptions {
  /** Name in the output, e.g. "gateway". */
  name: string;
  kind: ChildKind;
  role: Role;
  cpus: CpuPlan;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** The child's whole environment; default: this process's. */
  env?: Record<string, string>;
}

/** A benchmark process: TypeScript run by tsx, with --expose-gc, answering calls over IPC. */
export class BenchChild {
  readonly #process: ChildProcess;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly #exited: Promise<void>;
  #nextId = 1;

  private constructor(
    readonly name: string,
    child: ChildProcess,
  ) {
    this.#process = child;
    running.add(child);
    this.#exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        running.delete(child);
        for (const { reject } of this.#pending.values()) reject(new Error(`${name} exited (${signal ?? `code ${code}`})`));
        this.#pending.clear();
        resolve();
      }),
    );
    child.on('message', (message: ChildMessage) => {
      if (!('id' in message)) return;
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if ('error' in message) pending?.reject(new Error(`${name}: ${message.error}`));
      else pending?.resolve(message.result);
    });
  }

  /** Spawns the child and waits until it listens for calls. */
  static async spawn(options: ChildOptions): Promise<BenchChild> {
    const script = fileURLToPath(new URL(`./children/${options.kind}.ts`, import.meta.url));
    const { file, args } = options.cpus.command(options.role, ['--import', 'tsx', '--expose-gc', ...(options.nodeFlags ?? []), script]);
    const child = spawn(file, args, {
      cwd: REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    if (child.stderr) {
      createInterface({ input: child.stderr }).on('line', (line) => process.stderr.write(`[${options.name}] ${line}\n`));
    }
    const benchChild = new BenchChild(options.name, child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${options.name} did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      child.once('error', reject);
      child.once('exit', (code, signal) => reject(new Error(`${options.name} exited while starting (${signal ?? `code ${code}`})`)));
      child.on('message', (message: ChildMessage) => {
        if ('alive' in message) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    return benchChild;
  }

  call<T>(method: string, params?: unknown): Promise<T> {
    const id = this.#nextId++;
    const message: CallMessage = { id, method, params };
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#process.send(message, (error) => {
        if (error) {
          this.#pending.delete(id);
          reject(error);
        }
      });
    });
  }

  /** Closes the channel, on which the child exits by itself (writing any --cpu-prof profile); kills it if it lingers. */
  async stop(): Promise<void> {
    if (!running.has(this.#process)) return;
    if (this.#process.connected) this.#process.disconnect();
    const timer = setTimeout(() => this.#process.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.#exited;
    clearTimeout(timer);
  }
}
