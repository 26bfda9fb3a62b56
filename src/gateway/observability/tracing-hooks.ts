import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Tracer } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../../schema/context.js';

/** How the gateway serves one request; `continueFirst` as in http/request-handler.ts. */
export type Serve<Response extends ServerResponse = ServerResponse> = (
  request: IncomingMessage,
  response: Response,
  continueFirst?: boolean,
) => void;

/** The hooks through which a traced gateway makes its spans; with tracing off there is none, and nothing runs per request. */
export interface Tracing {
  /** `serve` with each request in a server span of its own, continuing the request's `traceparent`. */
  traceRequests<Response extends ServerResponse>(serve: Serve<Response>): Serve<Response>;
  /** The GraphQL operation's span and the searchCompanies resolver's. */
  plugins: Plugin<GatewayContext>[];
  /** For the upstream client's cache lookup spans; its calls to the upstream are traced through undici's diagnostics channels. */
  tracer: Tracer;
  /** A pino mixin: the trace and span ids of the span active when a line is written. */
  logFields(): object;
  /** Exports every span ended so far. */
  forceFlush(): Promise<void>;
  /** Exports what is left and stops; a failed export is reported (see reportProblemsTo), not thrown. */
  shutdown(): Promise<void>;
  /** Where the SDK's warnings and errors go (a collector it cannot reach, spans it drops); unset, nowhere. */
  reportProblemsTo(log: ProblemLog): void;
}

export interface ProblemLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** What the gateway itself decides of tracing, where the settings turn it on; the SDK reads the other OTEL_* variables itself. */
export interface TracingSettings {
  serviceName: string;
  /** Whether spans may hold what clients search for (`q`, `companyNumber`); off, they never do. */
  recordSearchTerms: boolean;
}

export interface TracingOptions {
  /** Instead of the exporter the OTEL_* variables configure, e.g. a test's in-memory exporter. */
  spanProcessors?: SpanProcessor[] | undefined;
}
