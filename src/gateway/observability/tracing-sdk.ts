import { type DiagLogger, DiagLogLevel, diag, trace } from '@opentelemetry/api';
import { UndiciInstrumentation, type UndiciRequest } from '@opentelemetry/instrumentation-undici';
import { core, NodeSDK } from '@opentelemetry/sdk-node';
import { serverSpans } from './server-spans.js';
import type { ProblemLog, Tracing, TracingOptions, TracingSettings } from './tracing-hooks.js';
import { useOperationSpans } from './use-operation-spans.js';

/** The tracer of the gateway's own spans (server, operation, resolver, cache lookup). */
export const TRACER_NAME = 'company-search-gateway';

/** What stands in for a value spans must not hold, as OpenTelemetry's conventions spell it. */
export const REDACTED = 'REDACTED';

/** The upstream's search parameter, which holds what the client searched for. */
const SEARCH_TERMS_PARAM = 'q';

/** Starts the SDK as the OTEL_* variables configure it (exporter, protocol, sampler, resource), for traces only. */
export function startSdk(settings: TracingSettings, options: TracingOptions): Tracing {
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    instrumentations: [upstreamCallSpans(settings)],
    // W3C trace context only: the default also passes on a client's baggage header to the upstream, untouched.
    textMapPropagator: new core.W3CTraceContextPropagator(),
    // NodeSDK would also export metrics and logs over OTLP by default; the gateway sends traces only.
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors === undefined ? {} : { spanProcessors: options.spanProcessors }),
  });
  sdk.start();
  const tracer = trace.getTracer(TRACER_NAME);
  const provider = trace.getTracerProvider() as { forceFlush?: () => Promise<void> };
  let stopped: Promise<void> | undefined;
  return {
    traceRequests: serverSpans(tracer),
    plugins: [useOperationSpans({ tracer, recordSearchTerms: settings.recordSearchTerms })],
    tracer,
    // A new object each time: pino merges the line's own fields into it.
    logFields: () => {
      const span = trace.getActiveSpan();
      if (span === undefined) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    forceFlush: async () => {
      // The global provider is a proxy; the SDK's own provider behind it does the flushing.
      const delegate = (provider as { getDelegate?: () => { forceFlush?: () => Promise<void> } }).getDelegate?.() ?? provider;
      await delegate.forceFlush?.();
    },
    // A collector that refuses the last spans is worth a warning, not a failed stop; a second call waits for the first.
    shutdown: () => (stopped ??= sdk.shutdown().catch((error: unknown) => diag.error('the last spans could not be exported', error))),
    reportProblemsTo: (log) => diag.setLogger(diagnosticsTo(log), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true }),
  };
}

/** The SDK's warnings and errors (a collector that cannot be reached, spans dropped) as log warnings; its chatter is left out. */
function diagnosticsTo(log: ProblemLog): DiagLogger {
  const warn = (message: string, ...details: unknown[]) =>
    log.warn({ details: details.map((detail) => (detail instanceof Error ? detail.message : detail)) }, `Tracing: ${message}`);
  const ignore = () => {};
  return { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
}

/**
 * Each upstream call (token and search) as a client span, with `traceparent`
 * sent along. Only calls made for a traced request are traced: other undici
 * clients in the process (a test's, say) are left alone. The instrumentation
 * records neither bodies nor headers, so neither the credentials nor the
 * token reach a span; the search terms in the URL are replaced before the
 * span starts, unless OTEL_RECORD_SEARCH_TERMS asks for them.
 */
function upstreamCallSpans(settings: TracingSettings): UndiciInstrumentation {
  return new UndiciInstrumentation({
    requireParentforSpans: true,
    startSpanHook: (request) => (settings.recordSearchTerms ? {} : withoutSearchTerms(request)),
    requestHook: (span, request) => span.updateName(`${request.method} ${request.path.split('?', 1)[0]}`),
  });
}

/** The URL attributes with the search terms replaced, for a request that carries any. */
function withoutSearchTerms(request: UndiciRequest): Record<string, string> {
  const url = new URL(request.path, request.origin);
  if (!url.searchParams.has(SEARCH_TERMS_PARAM)) return {};
  url.searchParams.set(SEARCH_TERMS_PARAM, REDACTED);
  return { 'url.full': url.href, 'url.query': url.search };
}
