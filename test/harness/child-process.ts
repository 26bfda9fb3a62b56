import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { CallMessage, ChildMessage } from './protocol.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 60_000;
/** A safety bound on any call; far beyond what a healthy child takes. */
const CALL_TIMEOUT_MS = 60_000;
/** After the channel closes, how long the child has to finish (a gateway closing, a --cpu-prof profile written) before it is killed. */
const STOP_TIMEOUT_MS = 15_000;

/** Every child still running; killed when this process exits, however it exits. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Pids of the children still running. */
export function childPids(): number[] {
  return [...running].flatMap((child) => (child.pid === undefined ? [] : [child.pid]));
}

export interface Crash {
  at: Date;
  origin: string;
  error: string;
}

export interface Exit {
  /** "code 0", "SIGKILL", … */
  how: string;
  /** What the child reported before it died of an uncaught error. */
  crash: Crash | undefined;
}

export interface ChildOptions {
  /** Name in the output, e.g. "gateway". */
  name: string;
  /** The TypeScript file the child runs; it answers calls with serveParent(). */
  script: string;
  /** The child's whole environment: nothing of this process's is inherited unless given. */
  env: NodeJS.ProcessEnv;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** How node is started, e.g. pinned to a core; default: this process's node. */
  command?: (nodeArgs: string[]) => { file: string; args: string[] };
  /**
   * `ignore`: stdout goes nowhere (the benchmark's gateway logs there, as in production); `stderr`: onto this
   * process's stderr; `{ file }`: into that file, written by the child itself (e.g. a --trace-gc log).
   */
  stdout?: 'ignore' | 'stderr' | { file: string };
}

/**
 * A child process of the benchmark or the soak run: TypeScript run by tsx,
 * with --expose-gc, answering calls over IPC (serve-parent.ts). Its stderr
 * comes out on this process's, each line prefixed with its name.
 */
export class HarnessChild {
  readonly #process: ChildProcess;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  #nextId = 1;
  #crash: Crash | undefined;
  /** Settles when the child has exited, for whatever reason. */
  readonly exited: Promise<Exit>;

  private constructor(
    readonly name: string,
    child: ChildProcess,
  ) {
    this.#process = child;
    running.add(child);
    this.exited = new Promise((resolve) => {
      const finish = (how: string) => {
        if (!running.delete(child)) return;
        const exit = { how, crash: this.#crash };
        for (const { reject } of this.#pending.values()) reject(new Error(`${name} exited (${describeExit(exit)})`));
        this.#pending.clear();
        resolve(exit);
      };
      child.once('exit', (code, signal) => finish(signal ?? `code ${code}`));
      // A process that could not be started emits 'error' and never 'exit'.
      child.once('error', (error) => {
        if (child.pid === undefined) finish(`not started: ${error.message}`);
      });
    });
    child.on('message', (message: ChildMessage) => {
      if ('crash' in message) {
        this.#crash = { at: new Date(), ...message.crash };
      } else if ('id' in message) {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if ('error' in message) pending?.reject(new Error(`${name}: ${message.error}`));
        else pending?.resolve(message.result);
      }
    });
  }

  /** Spawns the child and waits until it listens for calls. */
  static async spawn(options: ChildOptions): Promise<HarnessChild> {
    const nodeArgs = ['--import', 'tsx', '--expose-gc', ...(options.nodeFlags ?? []), options.script];
    const { file, args } = options.command?.(nodeArgs) ?? { file: process.execPath, args: nodeArgs };
    const stdout = options.stdout ?? 'ignore';
    const stdoutFile = typeof stdout === 'object' ? openSync(stdout.file, 'w') : undefined;
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        cwd: REPO_ROOT,
        env: options.env,
        stdio: ['ignore', stdoutFile ?? (stdout === 'ignore' ? 'ignore' : 'pipe'), 'pipe', 'ipc'],
        serialization: 'advanced',
      });
    } finally {
      // The child has its own copy of the descriptor.
      if (stdoutFile !== undefined) closeSync(stdoutFile);
    }
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', (line) => process.stderr.write(`[${options.name}] ${line}\n`));
    }
    const harnessChild = new HarnessChild(options.name, child);
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${options.name} did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
        child.once('error', reject);
        void harnessChild.exited.then((exit) => reject(new Error(`${options.name} exited while starting (${describeExit(exit)})`)));
        child.on('message', (message: ChildMessage) => {
          if ('alive' in message) resolve();
        });
      });
    } catch (error) {
      await harnessChild.stop();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return harnessChild;
  }

  get pid(): number | undefined {
    return this.#process.pid;
  }

  /** Calls `method` in the child; rejects if it fails, exits or takes longer than `timeoutMs`. */
  call<T>(method: string, params?: unknown, timeoutMs = CALL_TIMEOUT_MS): Promise<T> {
    const id = this.#nextId++;
    const message: CallMessage = { id, method, params };
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${this.name} did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const settle = {
        resolve: (value: unknown) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.#pending.set(id, settle);
      if (!this.#process.connected) {
        this.#pending.delete(id);
        settle.reject(new Error(`${this.name} is not running`));
        return;
      }
      this.#process.send(message, (error) => {
        if (error) {
          this.#pending.delete(id);
          settle.reject(error);
        }
      });
    });
  }

  /** Closes the channel, on which the child finishes and exits by itself; kills it if it lingers. */
  async stop(): Promise<void> {
    if (!running.has(this.#process)) return;
    if (this.#process.connected) this.#process.disconnect();
    const timer = setTimeout(() => this.#process.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

export function describeExit({ how, crash }: Exit): string {
  return crash === undefined ? how : `${how}: ${crash.origin}: ${crash.error}`;
}
