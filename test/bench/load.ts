import { Pool } from 'undici';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface LoadPlan {
  /** Asked before each request; the run ends when every in-flight request is done and this is false. */
  more(): boolean;
  next(): LoadRequest;
  /** A description of what is wrong with an answer, or undefined when it is right. */
  check(status: number, body: Buffer): string | undefined;
}

export interface LoadRun {
  requests: number;
  elapsedMs: number;
  /** Ascending, one per answered request. */
  latenciesMs: Float64Array;
  /** CPU time of this process (the load generator) during the run. */
  clientCpuUs: number;
  failures: number;
  /** The first few failures, for the report. */
  failureSamples: string[];
}

const FAILURE_SAMPLES = 3;
/** A run that fails this often measures nothing worth waiting for. */
const MAX_FAILURES = 100;

/** A closed-loop load generator: `concurrency` requests in flight on as many keep-alive connections. */
export class LoadClient {
  readonly #pool: Pool;

  constructor(
    origin: string,
    readonly concurrency: number,
  ) {
    this.#pool = new Pool(origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  }

  async run(plan: LoadPlan): Promise<LoadRun> {
    const latencies: number[] = [];
    const failureSamples: string[] = [];
    let failures = 0;
    const fail = (problem: string) => {
      failures += 1;
      if (failureSamples.length < FAILURE_SAMPLES) failureSamples.push(problem);
    };

    const worker = async () => {
      while (failures < MAX_FAILURES && plan.more()) {
        const request = plan.next();
        const startedAt = performance.now();
        try {
          const response = await this.#pool.request(request);
          const body = Buffer.from(await response.body.arrayBuffer());
          latencies.push(performance.now() - startedAt);
          const problem = plan.check(response.statusCode, body);
          if (problem !== undefined) fail(problem);
        } catch (error) {
          fail(`${request.method} ${request.path}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    };

    const cpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    await Promise.all(Array.from({ length: this.concurrency }, worker));
    const elapsedMs = performance.now() - startedAt;
    const cpu = process.cpuUsage(cpuBefore);
    return {
      requests: latencies.length,
      elapsedMs,
      latenciesMs: Float64Array.from(latencies).sort(),
      clientCpuUs: cpu.user + cpu.system,
      failures,
      failureSamples,
    };
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** Runs for `durationMs` from the first call. */
export function forDuration(durationMs: number): () => boolean {
  let deadline: number | undefined;
  return () => {
    deadline ??= performance.now() + durationMs;
    return performance.now() < deadline;
  };
}

/** Runs until `count` requests have been started. */
export function forCount(count: number): () => boolean {
  let started = 0;
  return () => started++ < count;
}
