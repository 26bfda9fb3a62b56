import type { IncomingMessage } from 'node:http';
import { LRUCache } from 'lru-cache';
import { ALL_TAG } from '../../upstream/cache-tags.js';
import { entryBytes, entryKey, ownedBytes } from '../../upstream/cache-entry.js';
import { systemClock, type Clock } from '../../upstream/resilience/clock.js';
import { isBatchBody } from '../graphql/batch-body.js';

export interface SerializedAnswer {
  contentType: string;
  body: Buffer;
  /** What its data is about (upstream/cache-tags.ts), separated by spaces: a purge of any of them drops it. */
  tags: string;
  /** Epoch ms until which its data is fresh. */
  freshUntil: number;
  /** A GET's: the validator HTTP caches revalidate it by. */
  etag: string | undefined;
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
 * The most of the cache's bytes one answer may take; a larger one is not
 * kept. Answers a few clients make large (every alias of a query, strings up
 * to their caps) would otherwise evict everyone else's: with the defaults, 512
 * KiB of 32 MiB, several times the largest answer a client asks for in
 * earnest, and 64 of them fill the cache.
 */
export const MAX_ENTRY_SHARE = 1 / 64;

/**
 * Longest request whose answer is kept, in bytes of URL, Content-Type and
 * body, far above dashboards' requests: it bounds what a key costs to compute,
 * and what the parts kept in a key as they are (a POST's URL, the
 * Content-Type) can add to the cache.
 */
export const MAX_KEY_LENGTH = 8_192;

/**
 * What an entry counts: its body's bytes, its tags and ETag (ASCII, which V8
 * holds at a byte a character) and what every entry holds besides
 * (cache-entry.ts).
 */
function answerBytes(answer: SerializedAnswer): number {
  return entryBytes(answer.body) + answer.tags.length + (answer.etag?.length ?? 0);
}

/**
 * Serialized answers to GraphQL requests, reused byte for byte when the same
 * request comes again while the data it was built from is fresh. It is
 * consulted before Yoga parses, validates or executes anything, and behind
 * every access check and rate limit, which run in front of it.
 *
 * The key is the request exactly as sent (method, target, Accept,
 * Content-Type, body; see keyOf), so telling two requests apart costs a
 * digest of their bytes, a map lookup and no parsing; the same operation
 * written differently is merely another entry. Each entry counts its bytes
 * and what every entry holds besides (answerBytes): a small answer holds
 * several times its own bytes.
 */
export class ResponseCache {
  readonly #answers: LRUCache<string, SerializedAnswer>;
  readonly #maxTtlMs: number;
  readonly #clock: Clock;
  /** Counts clear()s: each key starts with it, so that an answer begun before a clear, kept after it, is never found. */
  #generation = 0;
  /** Counts purges: an answer whose execution began before one is not kept (its data may be what the purge dropped). */
  #purges = 0;

  constructor(options: ResponseCacheOptions) {
    this.#maxTtlMs = options.maxTtlMs;
    this.#clock = options.clock ?? systemClock;
    this.#answers = new LRUCache<string, SerializedAnswer>({
      maxSize: options.maxBytes,
      maxEntrySize: Math.floor(options.maxBytes * MAX_ENTRY_SHARE),
      sizeCalculation: answerBytes,
      ttl: options.maxTtlMs,
      // A clock reading per check instead of lru-cache's 1 ms timer per access (see the search cache in upstream/window-cache.ts).
      ttlResolution: 0,
      // The clock freshUntil is on, which never steps back.
      perf: { now: this.#clock },
    });
  }

  /** Bytes held now, as the bound counts them. */
  get bytes(): number {
    return this.#answers.calculatedSize;
  }

  /**
   * The request as it was sent, by the SHA-256 of its method, Accept,
   * Content-Type, target and body (entryKey). Two requests share a key only
   * when those bytes are the same, and an entry holds a key of 44 characters
   * however long its request. A key of the bytes themselves costs more: V8
   * hashes a new string a character at a time, where SHA-256 runs over the
   * bytes in native code.
   */
  keyOf(request: IncomingMessage, body: Buffer | undefined): string {
    const { headers } = request;
    // Each part ends at a line break, which none can hold (Node refuses one in a header or the target), and the body comes last.
    const head = `${this.#generation}\n${request.method}\n${headers.accept ?? ''}\n${headers['content-type'] ?? ''}\n${request.url ?? ''}\n`;
    return body === undefined ? entryKey(head) : entryKey(head, body);
  }

  get(key: string): SerializedAnswer | undefined {
    return this.#answers.get(key);
  }

  /**
   * Forgets every answer: what they were made under (the trusted documents)
   * has changed. One still being made is kept under a key no request makes.
   */
  clear(): void {
    this.#generation += 1;
    this.#answers.clear();
  }

  /** How many purges this cache has seen: read before an execution, and handed to set() with its answer. */
  get purges(): number {
    return this.#purges;
  }

  /**
   * Keeps `answer` until `freshUntil` (on the clock), the moment its data goes
   * stale, or the maximum TTL, unless it would take more than its share of
   * the cache (MAX_ENTRY_SHARE), or a purge came since its execution began
   * (`purgesBefore`, read then from `purges`). A body that is a view of a larger buffer (Node
   * serves small Buffers from an 8 KiB pool) is kept as a copy of its own, so
   * that the bytes counted are the bytes held.
   */
  set(key: string, answer: SerializedAnswer, purgesBefore: number): void {
    const ttl = Math.min(answer.freshUntil - this.#clock(), this.#maxTtlMs);
    if (ttl < 1 || purgesBefore !== this.#purges) return;
    this.#answers.set(key, { ...answer, body: ownedBytes(answer.body) }, { ttl: Math.floor(ttl) });
  }

  /**
   * Drops every answer whose data carries `tag`, and keeps any answer being
   * made now from being kept (see set()); returns how many went. A walk over
   * the answers held, made once per purge: no request pays for it.
   */
  purge(tag: string): number {
    this.#purges += 1;
    if (tag === ALL_TAG) {
      const count = this.#answers.size;
      this.#answers.clear();
      return count;
    }
    const dropped: string[] = [];
    for (const [key, answer] of this.#answers.entries()) if (holdsTag(answer.tags, tag)) dropped.push(key);
    for (const key of dropped) this.#answers.delete(key);
    return dropped.length;
  }
}

/** Whether the space-separated `tags` hold `tag` whole. */
function holdsTag(tags: string, tag: string): boolean {
  for (let at = tags.indexOf(tag); at !== -1; at = tags.indexOf(tag, at + 1)) {
    const end = at + tag.length;
    if ((at === 0 || tags[at - 1] === ' ') && (end === tags.length || tags[end] === ' ')) return true;
  }
  return false;
}

/**
 * Whether a request's answer may come from, or go to, the cache: a single
 * operation (a batch's operations each have their own outcome) sent by GET or
 * POST, short enough to be a key (MAX_KEY_LENGTH).
 */
export function isReusableRequest(request: IncomingMessage, body: Buffer | undefined): boolean {
  if (request.method !== 'GET' && request.method !== 'POST') return false;
  const length = (request.url?.length ?? 0) + (request.headers['content-type']?.length ?? 0) + (body?.length ?? 0);
  if (length > MAX_KEY_LENGTH) return false;
  return body === undefined || !isBatchBody(body);
}
