import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { readConfig, type GatewayConfig } from '../../src/gateway/config/gateway-config.js';
import { createLogger } from '../../src/gateway/logger.js';
import { optionsOf } from '../../src/gateway/options-from-settings.js';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import type { Tracing } from '../../src/gateway/observability/tracing.js';
import type { Alarm, Clock, Sleep } from '../../src/upstream/resilience/clock.js';
import { startLookupService, type LookupService, type LookupServiceOptions } from '../../src/lookup-service/index.js';
import { send, type HttpAnswer } from './http.js';

export interface GraphQLResponse<TData> {
  status: number;
  body: {
    data?: TData | null;
    errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
    extensions?: Record<string, unknown>;
  };
}

export interface Stack {
  lookup: LookupService;
  gateway: RunningGateway;
  /** Every line the gateway logged, as written. */
  logs: string[];
  execute<TData, TVariables>(document: TypedDocumentNode<TData, TVariables>, variables: TVariables): Promise<GraphQLResponse<TData>>;
  /** Posts any JSON body to /graphql (a string as it is). */
  post(body: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  get(path: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export interface StackOptions {
  lookup?: LookupServiceOptions;
  gateway?: Partial<GatewayConfig>;
  /** The stack's clock, e.g. a `manualClock()`: the gateway's breaker, token and caches, and the lookup service's token lifetimes and quota. */
  clock?: Clock;
  /** How the gateway waits out its retries' backoffs, e.g. recording them and returning at once. */
  sleep?: Sleep;
  /** What rings each request's deadline, e.g. one the test rings once the upstream holds the search. */
  deadlineAlarm?: Alarm;
  /** Where the gateway's upstream is instead of the lookup service, e.g. a port nothing listens on. */
  upstreamUrl?: string;
  /** Tracing's hooks (see startTracing), for the gateway and its logger. */
  tracing?: Tracing;
  /**
   * Ask for the token at start, as `npm start` does (await `gateway.tokenAtStart`). Off by default: tests count
   * token calls and set token faults after the stack has started, and a token asked for in between would race them.
   */
  tokenAtStart?: boolean;
  /** Waits out SHUTDOWN_DRAIN_DELAY_MS in `gateway.close()`; a test resolves it when it has seen the drain. */
  drainWait?: (ms: number) => Promise<void>;
  /** The upstream's client id instead of the lookup service's, e.g. to have the credentials refused. */
  clientId?: string;
}

/** The embedded lookup service and a gateway in front of it, both on loopback ports of their own. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const lookup = await startLookupService(options.clock ? { clock: options.clock, ...options.lookup } : options.lookup);
  const logs: string[] = [];
  const config = { ...readConfig({}), port: 0, logLevel: 'debug' as const, ...options.gateway };
  const gateway = await startGateway({
    ...optionsOf(config).gateway,
    target: {
      url: new URL(options.upstreamUrl ?? lookup.url),
      ...lookup.credentials,
      ...(options.clientId && { clientId: options.clientId }),
    },
    logger: createLogger(config.logLevel, { write: (line: string) => logs.push(line) }, options.tracing?.logFields),
    clock: options.clock,
    sleep: options.sleep,
    deadlineAlarm: options.deadlineAlarm,
    tracing: options.tracing,
    tokenAtStart: options.tokenAtStart ?? false,
    drainWait: options.drainWait,
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    send(gateway.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  return {
    lookup,
    gateway,
    logs,
    post,
    async execute(document, variables) {
      const { status, text } = await post({ query: print(document), variables });
      return { status, body: JSON.parse(text) };
    },
    get: (path, headers = {}) => send(gateway.url, { path, headers }),
    async close() {
      await gateway.close();
      await lookup.close();
    },
  };
}
