import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { ALL_TAG, dataTags } from '../../upstream/cache-tags.js';
import { ExecutionRecord, type ReusableAnswer } from './execution-record.js';
import { etagOf, type HttpCaching, matchesIfNoneMatch, NO_STORE } from './http-caching.js';
import { isReusableRequest, type ResponseCache, type SerializedAnswer } from './response-cache.js';
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
 * A GET answer that may be reused tells HTTP caches for how long (see
 * HttpCaching), and a client whose `If-None-Match` names its ETag gets 304
 * without a body; every other answer is `no-store`.
 */
export function createYogaResponder(
  gateway: Gateway,
  cache: ResponseCache | undefined,
  http: HttpCaching,
  observer?: ResponseCacheObserver,
) {
  return (request: IncomingMessage, response: ServerResponse, body: Buffer | undefined): Promise<void> | undefined => {
    const key = cache && isReusableRequest(request, body) ? cache.keyOf(request, body) : undefined;
    const hit = key === undefined ? undefined : cache?.get(key);
    if (key !== undefined) observer?.responseCacheLookup(hit !== undefined);
    if (hit) {
      noteOutcome(response, 'response_cache');
      send(request, response, http, hit);
      return undefined;
    }
    return execute({ gateway, cache, http }, key, request, response, body);
  };
}

/** An answer that may be reused: to a GET with its caching headers (304 when the client has it), otherwise no-store. */
function send(request: IncomingMessage, response: ServerResponse, http: HttpCaching, answer: SerializedAnswer): void {
  if (answer.etag === undefined) {
    response.writeHead(200, { 'content-type': answer.contentType, 'content-length': answer.body.length, 'cache-control': NO_STORE });
    response.end(answer.body);
    return;
  }
  const headers = http.headers({ freshUntil: answer.freshUntil, etag: answer.etag, tags: answer.tags }, response);
  if (matchesIfNoneMatch(request, answer.etag)) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  response.writeHead(200, { 'content-type': answer.contentType, 'content-length': answer.body.length, ...headers });
  response.end(answer.body);
}

/** A request the cache does not answer: Yoga answers it, and the answer is kept when its execution record says it may be reused. */
async function execute(
  { gateway, cache, http }: { gateway: Gateway; cache: ResponseCache | undefined; http: HttpCaching },
  key: string | undefined,
  request: IncomingMessage,
  response: ServerResponse,
  body: Buffer | undefined,
): Promise<void> {
  const execution = new ExecutionRecord();
  noteOutcome(response, 'graphql');
  // Read before anything runs: a purge while it runs keeps its answer out of the cache.
  const purgesBefore = cache?.purges ?? 0;
  const serverContext: GatewayServerContext = { execution, requestId: requestIdOf(response) };
  // @whatwg-node/server (under Yoga) takes a `body` already read in place of the request stream. A
  // stream, not the Buffer itself: it counts the own keys of what it is given, one per byte of a Buffer.
  if (body) Object.assign(request, { body: Readable.from([body]) });
  const answer = await gateway.handleNodeRequestAndResponse(request, response, serverContext);
  const answerBody = asBuffer(await answer.arrayBuffer());
  if (response.destroyed) return;
  const contentType = answer.headers.get('content-type');
  const reusable = answer.status === 200 && isReusableContentType(contentType) ? execution.reusable() : undefined;
  if (reusable === undefined) {
    response.writeHead(answer.status, { ...endToEndHeaders(answer.headers, answerBody.length), 'cache-control': NO_STORE });
    response.end(answerBody);
    return;
  }
  const kept = reusableAnswer(request, contentType!, answerBody, reusable);
  send(request, response, http, kept);
  if (key !== undefined) cache?.set(key, kept, purgesBefore);
}

/** The answer as the caches keep it: its tags, its freshness and, for a GET, its ETag. */
function reusableAnswer(request: IncomingMessage, contentType: string, body: Buffer, reusable: ReusableAnswer): SerializedAnswer {
  // Everything's tag on every answer, those that read no upstream data included ({ __typename }, introspection): a
  // purge of everything (a new schema, say) drops them from a CDN as well.
  const tags = new Set<string>([ALL_TAG]);
  for (const source of reusable.sources) dataTags(source.query, source.companies, tags);
  return {
    contentType,
    body,
    tags: [...tags].join(' '),
    freshUntil: reusable.freshUntil,
    etag: request.method === 'GET' ? etagOf(contentType, body) : undefined,
  };
}
