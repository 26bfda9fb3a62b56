import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { ExecutionRecord } from './execution-record.js';
import { isReusableRequest, type ResponseCache } from './response-cache.js';
import type { GatewayServerContext } from '../graphql/server-context.js';
import type { Gateway } from '../graphql/yoga.js';
import { noteOutcome, requestIdOf } from '../observability/observed-response.js';

/** Told whether each request the cache could hold was found in it. */
export interface ResponseCacheObserver {
  responseCacheLookup(hit: boolean): void;
}

/** Headers about Yoga's own connection, not the answer: the whole body is sent here with its length. */
const HOP_BY_HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** The answer types whose bytes may be reused; streamed formats carry more than a content type. */
const REUSABLE_CONTENT_TYPES = ['application/json', 'application/graphql-response+json'];

function endToEndHeaders(headers: Headers, length: number): OutgoingHttpHeaders {
  const result: OutgoingHttpHeaders = { 'content-length': length };
  // Yoga's Headers keep the spelling they were given, e.g. `Transfer-Encoding`.
  headers.forEach((value, name) => {
    const lowerCase = name.toLowerCase();
    if (!HOP_BY_HOP_HEADERS.has(lowerCase)) result[lowerCase] = value;
  });
  return result;
}

/** The answer's bytes without a copy: @whatwg-node's `arrayBuffer()` already gives a Buffer. */
function asBuffer(bytes: ArrayBuffer | Uint8Array): Buffer {
  return bytes instanceof Uint8Array ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.from(bytes);
}

function isReusableContentType(contentType: string | null): contentType is string {
  return contentType !== null && REUSABLE_CONTENT_TYPES.some((type) => contentType.startsWith(type));
}

/**
 * Answers a request that passed every check in front: from the response cache
 * when it holds this very request (at once, with no promise), otherwise by
 * Yoga, keeping the answer when its execution record says it may be reused.
 */
export function createYogaResponder(gateway: Gateway, cache: ResponseCache | undefined, observer?: ResponseCacheObserver) {
  return (request: IncomingMessage, response: ServerResponse, body: Buffer | undefined): Promise<void> | undefined => {
    const key = cache && isReusableRequest(request, body) ? cache.keyOf(request, body) : undefined;
    const hit = key === undefined ? undefined : cache?.get(key);
    if (key !== undefined) observer?.responseCacheLookup(hit !== undefined);
    if (hit) {
      noteOutcome(response, 'response_cache');
      response.writeHead(200, { 'content-type': hit.contentType, 'content-length': hit.body.length });
      response.end(hit.body);
      return undefined;
    }
    return execute(gateway, cache, key, request, response, body);
  };
}

/** A request the cache does not answer: Yoga answers it, and the answer is kept when its execution record says it may be reused. */
async function execute(
  gateway: Gateway,
  cache: ResponseCache | undefined,
  key: string | undefined,
  request: IncomingMessage,
  response: ServerResponse,
  body: Buffer | undefined,
): Promise<void> {
  const execution = new ExecutionRecord();
  noteOutcome(response, 'graphql');
  const serverContext: GatewayServerContext = { execution, requestId: requestIdOf(response) };
  // @whatwg-node/server (under Yoga) takes a `body` already read in place of the request stream. A
  // stream, not the Buffer itself: it counts the own keys of what it is given, one per byte of a Buffer.
  if (body) Object.assign(request, { body: Readable.from([body]) });
  const answer = await gateway.handleNodeRequestAndResponse(request, response, serverContext);
  const answerBody = asBuffer(await answer.arrayBuffer());
  if (response.destroyed) return;
  response.writeHead(answer.status, endToEndHeaders(answer.headers, answerBody.length));
  response.end(answerBody);
  keep(cache, key, answer.status, answer.headers.get('content-type'), answerBody, execution);
}

/** Keeps an answer that its execution record says may be reused. */
function keep(
  cache: ResponseCache | undefined,
  key: string | undefined,
  status: number,
  contentType: string | null,
  body: Buffer,
  execution: ExecutionRecord,
): void {
  const reusableUntil = execution.reusableUntil();
  if (key !== undefined && status === 200 && reusableUntil !== undefined && isReusableContentType(contentType)) {
    cache?.set(key, { contentType, body }, reusableUntil);
  }
}
