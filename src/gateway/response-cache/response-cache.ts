import type { IncomingMessage } from 'node:http';
import { LRUCache } from 'lru-cache';
import { systemClock, type Clock } from '../../upstream/resilience/clock.js';
import { bufferBytes, LRU_ENTRY_BYTES, objectBytes, stringBytes } from '../../upstream/heap-size.js';
import { isBatchBody } from '../graphql/batch-body.js';

export interface SerializedAnswer {
  contentType: string;
  body: Buffer;
}

export interface ResponseCacheOptions {
  /** Upper bound, counted in bytes held: answers, keys and bookkeeping. */
  maxBytes: number;
  /** No answer is reused for longer than this, whatever its data says. */
  maxTtlMs: number;
  /** The same clock as the search cache's, which says until when an answer's data is fresh. */
  clock?: Clock | undefined;
}

/** The share of CACHE_MAX_BYTES given to serialized answers; upstream windows get the rest. */
export const RESPONSE_CACHE_SHARE = 0.5;

/**
 * Longest request kept as a key, in bytes of URL and body. Dashboards' requests are far
 * shorter; longer keys would cost more to hash and compare than running the
 * request, and a padded request could fill the cache with keys.
 */
export const MAX_KEY_LENGTH = 8_192;

/**
 * What an entry holds: the cache's entry, the key, the answer object, its
 * content type and its body with the Buffer's own bookkeeping.
 *
 * Checked with scripts/calibrate-cache-sizes.ts (Node 20.20, 64-bit), per
 * answer kept under a 1,100-byte key, the heap and the process memory outside
 * it after GC against this count:
 *
 *   body        heap  outside    held  counted
 *   150 B      1,449      339   1,788    1,940   +8%
 *   2 KiB      1,443    2,483   3,926    3,828   -2%
 *   40 KiB     1,444   41,615  43,060   42,740   -1%
 */
function entryBytes(answer: SerializedAnswer, key: string): number {
  return LRU_ENTRY_BYTES + stringBytes(key) + objectBytes(2) + stringBytes(answer.contentType) + bufferBytes(answer.body.byteLength);
}

/**
 * Serialized answers to GraphQL requests, reused byte for byte when the same
 * request comes again while the data it was built from is fresh. It is
 * consulted before Yoga parses, validates or executes anything, and behind
 * every access check and rate limit, which run in front of it.
 *
 * The key is the request exactly as sent (method, target, Accept,
 * Content-Type, body), so telling two requests apart costs a map lookup and no
 * parsing; the same operation written differently is merely another entry.
 * Keys count towards the byte bound and are at most MAX_KEY_LENGTH long.
 * Each entry counts what it holds (see entryBytes), not only its body: a
 * small answer holds several times its own bytes.
 */
export class ResponseCache {
  readonly #answers: LRUCache<string, SerializedAnswer>;
  readonly #maxTtlMs: number;
  readonly #clock: Clock;

  constructor(options: ResponseCacheOptions) {
    this.#maxTtlMs = options.maxTtlMs;
    this.#clock = options.clock ?? systemClock;
    this.#answers = new LRUCache<string, SerializedAnswer>({
      maxSize: options.maxBytes,
      sizeCalculation: entryBytes,
      ttl: options.maxTtlMs,
      // A clock reading per check instead of lru-cache's 1 ms timer per access (see the search cache in upstream/search-windows.ts).
      ttlResolution: 0,
      ...(options.clock ? { perf: { now: options.clock } } : {}),
    });
  }

  /** Bytes held now: answers, keys and bookkeeping. */
  get bytes(): number {
    return this.#answers.calculatedSize;
  }

  /**
   * The request's bytes as a string. The body is decoded as Latin-1, one
   * character a byte: cheaper than UTF-8, and two bodies give the same key only
   * when their bytes are the same. Node decodes the URL and headers the same way.
   * Joined rather than concatenated: V8 keeps a concatenation as a tree of its
   * pieces (a 32-byte node for each join), a join as one flat string.
   */
  keyOf(request: IncomingMessage, body: Buffer | undefined): string {
    const { headers } = request;
    return [request.method, request.url, headers.accept ?? '', headers['content-type'] ?? '', body?.toString('latin1') ?? ''].join('\n');
  }

  get(key: string): SerializedAnswer | undefined {
    return this.#answers.get(key);
  }

  /**
   * Keeps `answer` until `freshUntil` (epoch ms), the moment its data goes
   * stale, or the maximum TTL. A body that is a view of a larger buffer (Node
   * serves small Buffers from an 8 KiB pool) is kept as a copy of its own, so
   * that the bytes counted are the bytes held.
   */
  set(key: string, answer: SerializedAnswer, freshUntil: number): void {
    const ttl = Math.min(freshUntil - this.#clock(), this.#maxTtlMs);
    if (ttl < 1) return;
    const { body } = answer;
    // Not Buffer.copyBytesFrom: it serves small copies from the same shared pool.
    const owned = body.byteLength === body.buffer.byteLength ? body : Buffer.from(new Uint8Array(body).buffer);
    this.#answers.set(key, { contentType: answer.contentType, body: owned }, { ttl: Math.floor(ttl) });
  }
}

/**
 * Whether a request's answer may come from, or go to, the cache: a single
 * operation (a batch's operations each have their own outcome) sent by GET or
 * POST, short enough to be a key.
 */
export function isReusableRequest(request: IncomingMessage, body: Buffer | undefined): boolean {
  if (request.method !== 'GET' && request.method !== 'POST') return false;
  if ((request.url?.length ?? 0) + (body?.length ?? 0) > MAX_KEY_LENGTH) return false;
  return body === undefined || !isBatchBody(body);
}
