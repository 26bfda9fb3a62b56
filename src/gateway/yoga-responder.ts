import type { IncomingMessage, ServerResponse } from 'node:http';
import { ResponseNotes } from '../schema/response-notes.js';
import type { ResponseCache } from './response-cache.js';
import type { Gateway } from './yoga.js';

/** The request body, already read and size-checked by the request handler. */
function bodyOf(request: IncomingMessage): string | undefined {
  const { body } = request as { body?: unknown };
  return typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : undefined;
}

/**
 * Answers a request that passed every check in front: from the response cache
 * when it holds this very request, otherwise with Yoga, keeping the answer
 * when execution says it may be reused.
 */
export function createYogaResponder(gateway: Gateway, cache: ResponseCache | undefined) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const key = cache && (request.method === 'GET' || request.method === 'POST') ? cache.keyOf(request, bodyOf(request)) : undefined;
    const hit = key === undefined ? undefined : cache?.get(key);
    if (hit) {
      response.writeHead(200, { 'content-type': hit.contentType, 'content-length': hit.body.length });
      response.end(hit.body);
      return;
    }

    const notes = new ResponseNotes();
    const answer = await gateway.handleNodeRequestAndResponse(request, response, { notes });
    const body = Buffer.from(await answer.arrayBuffer());
    if (response.destroyed) return;
    response.writeHead(answer.status, { ...Object.fromEntries(answer.headers), 'content-length': body.length });
    response.end(body);

    const contentType = answer.headers.get('content-type');
    if (key !== undefined && answer.status === 200 && notes.reusable && contentType !== null) {
      cache?.set(key, { contentType, body }, notes.freshUntil);
    }
  };
}
