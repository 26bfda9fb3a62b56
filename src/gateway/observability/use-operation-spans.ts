import { context, type Span, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { getOperationAST, responsePathAsArray } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext, ResolverTracer } from '../../schema/context.js';

export interface OperationSpansOptions {
  tracer: Tracer;
  /** Whether the resolver's span may hold what the client searched for. */
  recordSearchTerms: boolean;
}

/** Longest operation name or field path a span holds: a client chooses them, up to the whole document. */
export const MAX_TRACED_NAME_LENGTH = 100;

/** The span of an operation not (yet) known to be valid, as OpenTelemetry's conventions name it. */
const UNKNOWN_OPERATION = 'GraphQL Operation';

/**
 * A span for each GraphQL operation (parse, validate and execute), named
 * after the operation's type and its name in the document, never holding
 * the document or its variables; and one for each searchCompanies resolver
 * (through `traceResolver` in the context), the parent of its cache lookups.
 */
export function useOperationSpans({ tracer, recordSearchTerms }: OperationSpansOptions): Plugin<GatewayContext> {
  const operations = new WeakSet<Span>();
  const traceResolver: ResolverTracer = (info, args, resolve) =>
    tracer.startActiveSpan(
      `${info.parentType.name}.${info.fieldName}`,
      {
        attributes: {
          'graphql.field.name': info.fieldName,
          'graphql.field.path': capped(responsePathAsArray(info.path).join('.')),
          ...searchAttributes(args, recordSearchTerms),
        },
      },
      (span) => ended(span, resolve),
    );
  return {
    instrumentation: {
      operation: (_payload, wrapped) => {
        const span = tracer.startSpan(UNKNOWN_OPERATION);
        operations.add(span);
        return context.with(trace.setSpan(context.active(), span), () => ended(span, wrapped));
      },
    },
    onContextBuilding: ({ extendContext }) => extendContext({ traceResolver }),
    onExecute: ({ args }) => {
      const span = trace.getActiveSpan();
      if (span === undefined || !operations.has(span)) return;
      const operation = getOperationAST(args.document, args.operationName);
      if (operation) {
        const name = operation.name === undefined ? undefined : capped(operation.name.value);
        span.updateName(name === undefined ? operation.operation : `${operation.operation} ${name}`);
        span.setAttribute('graphql.operation.type', operation.operation);
        if (name !== undefined) span.setAttribute('graphql.operation.name', name);
      }
      return {
        onExecuteDone: ({ result }) => {
          const errors = 'errors' in result ? result.errors : undefined;
          if (errors === undefined || errors.length === 0) return;
          const codes = [...new Set(errors.map(codeOf))];
          span.setAttribute('graphql.error.codes', codes);
          span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(', ') });
        },
      };
    },
  };
}

/** Ends `span` once `run` has settled, whether it returns a promise or not. */
function ended<T>(span: Span, run: () => T): T {
  const fail = (error: unknown): never => {
    span.setStatus({ code: SpanStatusCode.ERROR, message: codeOf(error) });
    span.end();
    throw error;
  };
  let result: T;
  try {
    result = run();
  } catch (error) {
    return fail(error);
  }
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return result.then((value: unknown) => {
    span.end();
    return value;
  }, fail) as T;
}

/** An error's code, never its message: a message may repeat what the client sent. */
function codeOf(error: unknown): string {
  const coded = error as { extensions?: { code?: unknown }; code?: unknown } | null;
  return String(coded?.extensions?.code ?? coded?.code ?? 'UNCODED');
}

function searchAttributes(args: Record<string, unknown>, recordSearchTerms: boolean): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (typeof args.jurisdiction === 'string') attributes['search.jurisdiction'] = args.jurisdiction;
  if (recordSearchTerms && typeof args.q === 'string') attributes['search.q'] = capped(args.q);
  return attributes;
}

function capped(text: string): string {
  return text.length > MAX_TRACED_NAME_LENGTH ? `${text.slice(0, MAX_TRACED_NAME_LENGTH)}…` : text;
}
