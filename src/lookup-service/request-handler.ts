import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { sendError } from './http-responses.js';
import { handleSearchRequest } from './search-endpoint.js';
import type { ServiceContext } from './service-context.js';
import { handleTokenRequest } from './token-endpoint.js';

interface Route {
  method: string;
  handle(context: ServiceContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
}

const ROUTES: ReadonlyMap<string, Route> = new Map([
  ['/v1/oauth/token', { method: 'POST', handle: handleTokenRequest }],
  ['/v1/company/search', { method: 'GET', handle: handleSearchRequest }],
]);

async function route(context: ServiceContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://localhost');
  } catch {
    sendError(res, 400, 'Malformed request target');
    return;
  }
  const target = ROUTES.get(url.pathname);
  if (target === undefined) {
    sendError(res, 404, `No resource at ${url.pathname}`);
    return;
  }
  if (req.method !== target.method) {
    sendError(res, 405, `Method ${req.method ?? ''} is not allowed on ${url.pathname}; use ${target.method}`, { allow: target.method });
    return;
  }
  const { traceparent } = req.headers;
  context.counters.recordTraceparent(url.pathname, typeof traceparent === 'string' ? traceparent : undefined);
  await target.handle(context, req, res, url);
}

function answerInternalError(context: ServiceContext, res: ServerResponse, error: unknown): void {
  // A latency wait cut short by close(): the connection is already gone.
  if (context.closing.aborted) return;
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  sendError(res, 500, `Internal server error: ${error instanceof Error ? error.message : String(error)}`);
}

/** Routes each request and answers 500 instead of crashing when a handler fails. */
export function createRequestListener(context: ServiceContext): RequestListener {
  return (req, res) => {
    route(context, req, res).catch((error: unknown) => answerInternalError(context, res, error));
  };
}
