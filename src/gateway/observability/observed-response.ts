import { randomUUID } from 'node:crypto';
import { type IncomingMessage, ServerResponse } from 'node:http';

/** How a request was answered, as its metrics count it. */
export type RequestOutcome = 'response_cache' | 'graphql' | 'refused' | 'other';

/** The header a request id comes in and goes back in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** An incoming id is kept when it is this short and plain: it goes into logs and answers as it is. */
export const MAX_REQUEST_ID_LENGTH = 128;
const PLAIN_ID = /^[A-Za-z0-9._-]+$/;

/** The client's id when it is short and plain, else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && header.length <= MAX_REQUEST_ID_LENGTH && PLAIN_ID.test(header) ? header : randomUUID();
}

/**
 * The gateway's responses (node:http makes one per request, of this class):
 * they carry the request's id and how it was answered, so that whoever writes
 * an answer can say so without a map or a closure per request.
 */
export class ObservedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  requestId = '';
  /** When the request came (performance.now()), for its duration. */
  startedAt = 0;
  outcome: RequestOutcome = 'other';
  refusalCode: string | undefined = undefined;
}

/** Stamps a request's response as it comes: when, and its id, which also goes back in the answer's header. */
export function startObserving(request: IncomingMessage, response: ObservedResponse): void {
  response.startedAt = performance.now();
  response.requestId = requestIdFrom(request.headers[REQUEST_ID_HEADER]);
  response.setHeader(REQUEST_ID_HEADER, response.requestId);
}

/** The request id of `response`, where it is one of the gateway's. */
export function requestIdOf(response: ServerResponse): string | undefined {
  return response instanceof ObservedResponse ? response.requestId : undefined;
}

/** Notes how `response` was answered, where it is one of the gateway's. */
export function noteOutcome(response: ServerResponse, outcome: RequestOutcome, refusalCode?: string): void {
  if (!(response instanceof ObservedResponse)) return;
  response.outcome = outcome;
  response.refusalCode = refusalCode;
}
