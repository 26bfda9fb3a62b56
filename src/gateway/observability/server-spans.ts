import type { ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { loggedPath } from '../logger.js';
import { GRAPHIQL_FILES_PATH, GRAPHQL_PATH, HEALTH_PATH, READY_PATH } from '../paths.js';
import type { Serve } from './tracing-hooks.js';

/**
 * Wraps `serve` so that each request runs in a server span, a child of the
 * span its `traceparent` names (W3C trace context) or the root of a new
 * trace. The span's name is a route the gateway knows, never a path a client
 * chose; it records no query string (a GET's holds the whole operation) and
 * no header but `traceparent`, which the propagator reads.
 */
export function serverSpans(tracer: Tracer): <Response extends ServerResponse>(serve: Serve<Response>) => Serve<Response> {
  return <Response extends ServerResponse>(serve: Serve<Response>): Serve<Response> =>
    (request, response, continueFirst) => {
      const parent = propagation.extract(ROOT_CONTEXT, request.headers);
      const method = request.method ?? 'GET';
      const route = routeOf(request.url);
      const span = tracer.startSpan(
        route === undefined ? method : `${method} ${route}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': method,
            'url.scheme': 'http',
            'url.path': loggedPath(request.url),
            'network.protocol.version': request.httpVersion,
            ...(route === undefined ? {} : { 'http.route': route }),
          },
        },
        parent,
      );
      response.once('close', () => {
        span.setAttribute('http.response.status_code', response.statusCode);
        if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        // The client went away before its whole answer was sent.
        if (!response.writableFinished) span.setAttribute('error.type', 'incomplete_response');
        span.end();
      });
      context.with(trace.setSpan(parent, span), () => serve(request, response, continueFirst));
    };
}

/** The route a request's path matches, or undefined for any other path. */
function routeOf(url: string | undefined): string | undefined {
  const path = url?.split('?', 1)[0];
  if (path === GRAPHQL_PATH || path === HEALTH_PATH || path === READY_PATH) return path;
  return path?.startsWith(GRAPHIQL_FILES_PATH) ? `${GRAPHIQL_FILES_PATH}*` : undefined;
}
