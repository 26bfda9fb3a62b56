import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { freePort } from './free-port.js';
import { send } from './http.js';
import { PROCESS_START_MS } from './within.js';

/** One series of an instant query's answer. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** What Prometheus says of one rule it loaded (GET /api/v1/rules). */
export interface RuleState {
  name: string;
  type: 'alerting' | 'recording';
  health: string;
  lastError?: string;
}

/** Debian's prometheus, scraping targets this test started and evaluating rule files, run by its PID. */
export interface PrometheusServer {
  readonly url: string;
  readonly pid: number;
  /** An instant query (GET /api/v1/query): its vector's series; a scalar answer is one series without labels. */
  query(expr: string): Promise<Sample[]>;
  /** Every rule of the rule files, with its health after its last evaluation. */
  rules(): Promise<RuleState[]>;
  /** SIGTERM, then SIGKILL if it has not exited; its storage is removed. */
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** `host:port` of each metrics server to scrape, all in one job. */
  targets: readonly string[];
  job: string;
  /** Absolute paths of rule files to load and evaluate. */
  ruleFiles?: readonly string[];
}

/** How often Prometheus scrapes and evaluates rules here: its smallest practical interval, so that a test waits little for what it polls. */
export const SCRAPE_INTERVAL = '1s';
const STOP_MS = 10_000;

/**
 * Starts `prometheus` on a free loopback port with a storage folder of its own
 * and resolves once it answers /-/ready. The port is chosen before the start
 * (Prometheus takes no port 0 it would report); a start that loses the port to
 * another process is tried again.
 */
export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  const folder = mkdtempSync(join(tmpdir(), 'csg-prometheus-'));
  const config = join(folder, 'prometheus.yml');
  writeFileSync(
    config,
    dump({
      global: { scrape_interval: SCRAPE_INTERVAL, scrape_timeout: SCRAPE_INTERVAL, evaluation_interval: SCRAPE_INTERVAL },
      rule_files: options.ruleFiles ?? [],
      scrape_configs: [{ job_name: options.job, static_configs: [{ targets: options.targets }] }],
    }),
  );
  try {
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const child = spawn(
        'prometheus',
        [
          `--config.file=${config}`,
          `--storage.tsdb.path=${join(folder, `data-${attempt}`)}`,
          `--web.listen-address=127.0.0.1:${port}`,
          '--log.level=warn',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let output = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        if (output.length < 64 * 1024) output += chunk;
      });
      const url = `http://127.0.0.1:${port}`;
      const ready = await readyOrExited(child, url);
      if (ready) return running(child, url, folder);
      if (attempt >= 4 || !output.includes('address already in use')) {
        throw new Error(`prometheus exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`);
      }
    }
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}

/** True once /-/ready answers 200, false if the process exits first; a hang past PROCESS_START_MS is an error. */
async function readyOrExited(child: ChildProcess, url: string): Promise<boolean> {
  // 'close', not 'exit': by then its stderr has been read whole, for the error message.
  const exited = once(child, 'close').then(() => false);
  const deadline = performance.now() + PROCESS_START_MS;
  while (performance.now() < deadline) {
    const answer = await Promise.race([
      exited,
      // 503 while it loads its storage, no answer before it listens: not ready yet.
      send(`${url}/-/ready`).then(
        (response) => (response.status === 200 ? true : undefined),
        () => undefined,
      ),
    ]);
    if (answer === false) return false;
    if (answer === true) return true;
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 50))]);
  }
  await stop(child);
  throw new Error(`prometheus was not ready within ${PROCESS_START_MS} ms`);
}

function running(child: ChildProcess, url: string, folder: string): PrometheusServer {
  return {
    url,
    pid: child.pid!,
    async query(expr) {
      const answer = await send(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
      const body = JSON.parse(answer.text) as {
        status: string;
        error?: string;
        data?: { resultType: string; result: unknown };
      };
      if (body.status !== 'success' || !body.data) throw new Error(`Prometheus refused ${expr}: ${body.error ?? answer.text}`);
      if (body.data.resultType === 'scalar') return [{ labels: {}, value: Number((body.data.result as [number, string])[1]) }];
      if (body.data.resultType !== 'vector') throw new Error(`${expr} gave a ${body.data.resultType}, not a vector`);
      return (body.data.result as { metric: Record<string, string>; value: [number, string] }[]).map(({ metric, value }) => ({
        labels: metric,
        value: Number(value[1]),
      }));
    },
    async rules() {
      const body = JSON.parse((await send(`${url}/api/v1/rules`)).text) as { data: { groups: { rules: RuleState[] }[] } };
      return body.data.groups.flatMap((group) => group.rules);
    },
    async stop() {
      await stop(child);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
  await exited;
  clearTimeout(timer);
}
