import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PROCESS_START_MS, SAFETY_MS, within } from './within.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A log line of the gateway, as written (JSON). */
export type LogEntry = Record<string, unknown> & { level: number; msg: string };

export const LOG_LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/**
 * `src/main.ts` in a process of its own (node with tsx's loader, so that the
 * process signalled is the gateway itself), configured by `settings` alone:
 * nothing of this process's environment but PATH and HOME. Its stdout is read
 * as the gateway's JSON log lines.
 */
export class GatewayProcess {
  readonly child: ChildProcess;
  readonly lines: LogEntry[] = [];
  /** Settles once the process has exited and its output is read. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #stdout = '';
  #stderr = '';
  #waiters: (() => void)[] = [];

  private constructor(settings: Record<string, string>) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: '0', ...settings },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.#read(chunk));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.#stderr += chunk));
    this.exited = new Promise((resolve) => this.child.once('close', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => this.#wake());
  }

  /** Starts it and waits for its ready line. */
  static async start(settings: Record<string, string>): Promise<GatewayProcess> {
    const gateway = new GatewayProcess(settings);
    await gateway.line((entry) => entry.msg.startsWith('Gateway ready'), 0, PROCESS_START_MS);
    return gateway;
  }

  /** The GraphQL URL its ready line gives. */
  get graphqlUrl(): string {
    return String(this.lines.find((entry) => entry.msg.startsWith('Gateway ready'))!.graphql);
  }

  /** The metrics URL its ready line gives (with METRICS_PORT set). */
  get metricsUrl(): string {
    return String(this.lines.find((entry) => entry.msg.startsWith('Gateway ready'))!.metrics);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** Where the log stands now: `line(match, mark())` waits for a line logged after this moment. */
  mark(): number {
    return this.lines.length;
  }

  /** The first line from index `from` on that matches; waits for it if it has not come yet. */
  async line(match: (entry: LogEntry) => boolean, from: number, timeoutMs = SAFETY_MS): Promise<LogEntry> {
    const found = () => this.lines.slice(from).find(match);
    const waiting = new Promise<LogEntry>((resolve, reject) => {
      const look = () => {
        const entry = found();
        if (entry) return resolve(entry);
        if (this.child.exitCode !== null || this.child.signalCode !== null) {
          return reject(new Error(`The gateway exited before the line came: ${this.#stderr}`));
        }
        this.#waiters.push(look);
      };
      look();
    });
    return within(waiting, timeoutMs, 'the log line');
  }

  /** The lines from index `from` on whose message starts with `prefix`. */
  since(from: number, prefix: string): LogEntry[] {
    return this.lines.slice(from).filter((entry) => entry.msg.startsWith(prefix));
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends it at once, whatever state it is in (cleanup after a failed test). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  #read(chunk: string): void {
    this.#stdout += chunk;
    const end = this.#stdout.lastIndexOf('\n');
    if (end < 0) return;
    for (const text of this.#stdout.slice(0, end).split('\n')) {
      if (text.trim() !== '') this.lines.push(JSON.parse(text) as LogEntry);
    }
    this.#stdout = this.#stdout.slice(end + 1);
    this.#wake();
  }

  #wake(): void {
    for (const look of this.#waiters.splice(0)) look();
  }
}
