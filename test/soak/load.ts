import { Agent } from 'undici';
import { postGraphQL, type Exchange, type GraphQLBody } from './graphql-http.js';
import { HUNG_AFTER_MS, SOAK_GATEWAY_SETTINGS } from './settings.js';
import { Tally } from './tally.js';
import type { Operation, Workload } from './workload.js';

const OVER_DEADLINE_MS = SOAK_GATEWAY_SETTINGS.requestDeadlineMs + 1_000;

/**
 * `concurrency` clients, each sending its next request as soon as the last
 * one is answered, and counting what came back in the current phase's tally
 * and the run's.
 */
export class Load {
  readonly total = new Tally();
  #phase = new Tally();
  #running = false;
  #workers: Promise<void>[] = [];
  readonly #dispatcher: Agent;

  constructor(
    private readonly workload: Workload,
    private readonly url: () => string,
    private readonly concurrency: number,
  ) {
    this.#dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 4_000 });
  }

  /** Counts from now on go to `tally` too (besides the run's total). */
  startPhase(tally: Tally): void {
    this.#phase = tally;
  }

  start(): void {
    this.#running = true;
    this.#workers = Array.from({ length: this.concurrency }, () => this.#work());
  }

  /** Stops sending and waits for the answers still outstanding. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#workers);
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }

  async #work(): Promise<void> {
    while (this.#running) {
      const operation = this.workload.next();
      const { query, variables } = operation;
      const exchange = await postGraphQL(this.#dispatcher, this.url(), { query, variables }, HUNG_AFTER_MS);
      this.#record(operation, exchange);
    }
  }

  #record(operation: Operation, exchange: Exchange): void {
    for (const tally of [this.total, this.#phase]) {
      tally.requests += 1;
      tally.count(tally.operations, operation.name);
      tally.maxLatencyMs = Math.max(tally.maxLatencyMs, exchange.latencyMs);
      if (exchange.latencyMs > OVER_DEADLINE_MS) tally.overDeadline += 1;
      if (exchange.kind === 'failed') {
        tally.count(tally.outcomes, exchange.outcome);
        tally.noteInvalid(`${operation.name}: ${exchange.outcome} after ${Math.round(exchange.latencyMs)} ms: ${exchange.reason}`);
        continue;
      }
      tally.count(tally.outcomes, String(exchange.status));
      if (exchange.kind === 'invalid') {
        tally.noteInvalid(`${operation.name}: ${exchange.reason}`);
        continue;
      }
      if (exchange.status !== 200)
        tally.noteInvalid(`${operation.name}: status ${exchange.status}: ${JSON.stringify(exchange.body).slice(0, 200)}`);
      countAnswer(tally, exchange.body);
    }
    if (exchange.kind === 'answer') this.workload.harvest(operation, exchange.body.data);
  }
}

function countAnswer(tally: Tally, body: GraphQLBody): void {
  for (const error of body.errors ?? []) {
    const code = error.extensions?.code;
    tally.count(tally.errorCodes, typeof code === 'string' ? code : '(none)');
  }
  if (!body.errors) tally.clean += 1;
  const staleWarnings = (body.extensions?.warnings ?? []).filter((warning) => warning.code === 'STALE_DATA');
  if (staleWarnings.length > 0) tally.staleOnError += 1;
  const connection = (body.data as { searchCompanies?: { stale?: unknown } } | null | undefined)?.searchCompanies;
  if (connection?.stale === true && staleWarnings.length === 0) tally.staleRevalidating += 1;
  const warnedAboutSearch = staleWarnings.some((warning) => Array.isArray(warning.path) && warning.path[0] === 'searchCompanies');
  if (warnedAboutSearch && connection?.stale === false) tally.staleMismatches += 1;
}
