import type { IncomingMessage } from 'node:http';
import { LRUCache } from 'lru-cache';
import { isBatchBody } from './request-body.js';

export interface SerializedAnswer {
  contentType: string;
  body: Buffer;
}

export interface ResponseCacheOptions {
  /** Upper bound, counted in bytes of answers. */
  maxBytes: number;
  /** No answer is reused for longer than this, whatever its data says. */
  maxTtlMs: number;
}

/** The share of CACHE_MAX_BYTES given to serialized answers; upstream windows get the rest. */
export const RESPONSE_CACHE_SHARE = 0.5;

/**
 * Longest request kept as a key, in bytes of URL and body. Dashboards' requests are far
 * shorter; longer keys would cost more to hash and compare than running the
 * request, and a padded request could fill the cache with keys.
 */
export const MAX_KEY_LENGTH = 8_192;

/** What an entry costs beyond its body and key: bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 256;

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
 */
export class ResponseCache {
  readonly #answers: LRUCache<string, SerializedAnswer>;
  readonly #maxTtlMs: number;

  constructor(options: ResponseCacheOptions) {
    this.#maxTtlMs = options.maxTtlMs;
    this.#answers = new LRUCache<string, SerializedAnswer>({
      maxSize: options.maxBytes,
      // Keys are Latin-1 (see keyOf), which V8 stores at one byte a character.
      sizeCalculation: (answer, key) => answer.body.length + key.length + ENTRY_OVERHEAD_BYTES,
      ttl: options.maxTtlMs,
      // A clock reading per check instead of lru-cache's 1 ms timer per access (see the search cache in upstream/client.ts).
      ttlResolution: 0,
    });
  }

  /** Bytes held now, bodies and overhead together. */
  get bytes(): number {
    return this.#answers.calculatedSize;
  }

  /**
   * The request's bytes as a string. The body is decoded as Latin-1, one
   * character a byte: cheaper than UTF-8, and two bodies give the same key only
   * when their bytes are the same. Node decodes the URL and headers the same way.
   */
  keyOf(request: IncomingMessage, body: Buffer | undefined): string {
    const { headers } = request;
    return `${request.method}\n${request.url}\n${headers.accept ?? ''}\n${headers['content-type'] ?? ''}\n${body?.toString('latin1') ?? ''}`;
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
    const ttl = Math.min(freshUntil - Date.now(), this.#maxTtlMs);
    if (ttl < 1) return;
    const { body } = answer;
    // Not Buffer.copyBytesFrom: it serves small copies from the same shared pool.
    const owned = body.byteLength === body.buffer.byteLength ? body : Buffer.from(new Uint8Array(body).buffer);
    this.#answers.set(key, owned === body ? answer : { ...answer, body: owned }, { ttl: Math.floor(ttl) });
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
