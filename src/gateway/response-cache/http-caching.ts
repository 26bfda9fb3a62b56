import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Clock } from '../../upstream/resilience/clock.js';

/** Where a CDN reads the tags it can purge by: Cloudflare and Akamai's name, or Fastly's (Varnish's xkey takes either). */
export type TagHeader = 'Cache-Tag' | 'Surrogate-Key';

export interface HttpCachingOptions {
  /**
   * `public` where anonymous access is allowed: the answer is anyone's to have, a shared cache may hand it to
   * anyone. `private` where access control decides who gets it: only the client's own cache may keep it. Asked at
   * each answer: a reload may turn anonymous access off.
   */
  scope: () => 'public' | 'private';
  /** The response cache's longest TTL (CACHE_TTL_MS): no answer is reused longer, whatever its data says. */
  maxTtlMs: number;
  /** The search windows' stale rules: how long past its TTL the gateway itself still serves data. */
  staleWhileRevalidateMs: number;
  staleIfErrorMs: number;
  /** The header a public answer's tags go in, or none. */
  tagHeader: TagHeader | undefined;
  clock: Clock;
}

/** What HTTP caches are told about an answer that may be reused. */
export interface CacheableAnswer {
  /** Epoch ms (the gateway's clock) until which its data is fresh. */
  freshUntil: number;
  /** The validator: a strong ETag of its content type and bytes. */
  etag: string;
  /** What its data is about (upstream/cache-tags.ts), separated by spaces. */
  tags: string;
}

/**
 * Most bytes of a tag header. Past it the answer is `private`, with no tags: a
 * CDN that could not be told which purge drops it must not keep it. Below
 * Varnish's default `http_resp_hdr_len` (8 KiB) and the 16 KiB Cloudflare and
 * Fastly take; a page of 50 companies takes about 1 KiB.
 */
export const MAX_TAG_HEADER_BYTES = 4_096;

/** What every answer that must not be kept says. */
export const NO_STORE = 'no-store';

/** A strong ETag: the content type and body's SHA-256, 128 bits of it. */
export function etagOf(contentType: string, body: Buffer): string {
  return `"${createHash('sha256').update(`${contentType}\n`).update(body).digest('base64url').slice(0, 22)}"`;
}

/**
 * Whether `If-None-Match` names `etag` (or is `*`): the client's copy is the
 * current one. Compared weakly, as RFC 9110 (13.1.2) asks for this header.
 */
export function matchesIfNoneMatch(request: IncomingMessage, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === etag;
  });
}

/**
 * The HTTP caching headers of GET answers: `Cache-Control` from the data's
 * remaining freshness and the gateway's stale rules, `ETag`, `Vary` and the
 * CDN's tags. An HTTP cache is never told an answer is fresh for longer than
 * the gateway would serve its data as fresh, nor stale for longer than the
 * gateway itself would serve it stale.
 */
export class HttpCaching {
  readonly #options: HttpCachingOptions;

  constructor(options: HttpCachingOptions) {
    this.#options = options;
  }

  /** The answer's end-to-end caching headers now, `Vary` merged with what the response already varies by (CORS: `Origin`). */
  headers(answer: CacheableAnswer, response: ServerResponse): OutgoingHttpHeaders {
    const { tagHeader } = this.#options;
    const tagValue = tagHeader === undefined ? '' : tagHeader === 'Cache-Tag' ? answer.tags.replaceAll(' ', ',') : answer.tags;
    const untaggable = tagHeader !== undefined && tagValue.length > MAX_TAG_HEADER_BYTES;
    const scope = untaggable ? 'private' : this.#options.scope();
    const headers: OutgoingHttpHeaders = {
      'cache-control': this.cacheControl(answer.freshUntil, scope),
      etag: answer.etag,
      vary: varyWith(response.getHeader('vary'), 'Accept'),
    };
    if (scope === 'public' && tagHeader !== undefined) headers[tagHeader.toLowerCase()] = tagValue;
    return headers;
  }

  /**
   * `max-age`: whole seconds left until `freshUntil` (rounded down), at most
   * the response cache's TTL. The stale windows start where max-age ends and
   * end where the gateway's own do (CACHE_STALE_WHILE_REVALIDATE_MS and
   * CACHE_STALE_IF_ERROR_MS past the data's TTL), both always written: a cache
   * such as Varnish gives an answer without them a stale period of its own.
   */
  cacheControl(freshUntil: number, scope: 'public' | 'private'): string {
    const { maxTtlMs, staleWhileRevalidateMs, staleIfErrorMs, clock } = this.#options;
    const now = clock();
    const until = Math.min(freshUntil, now + maxTtlMs);
    const maxAge = wholeSeconds(until - now);
    const staleFor = (ms: number) => Math.max(0, wholeSeconds(until + ms - now) - maxAge);
    return `${scope}, max-age=${maxAge}, stale-while-revalidate=${staleFor(staleWhileRevalidateMs)}, stale-if-error=${staleFor(staleIfErrorMs)}`;
  }
}

function wholeSeconds(ms: number): number {
  return Math.max(0, Math.floor(ms / 1000));
}

/** `Vary` with `name` added to what it already lists. */
function varyWith(existing: number | string | string[] | undefined, name: string): string {
  const listed = existing === undefined ? [] : [existing].flat().map(String);
  return [...listed, name].join(', ');
}
