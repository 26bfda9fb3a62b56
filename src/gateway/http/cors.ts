import { API_KEY_HEADER } from '../access/api-keys.js';
import { REQUEST_ID_HEADER } from '../observability/observed-response.js';
import { CSRF_HEADERS } from './csrf.js';

export const CORS_ALLOWED_METHODS = 'GET, POST, OPTIONS';
export const CORS_ALLOWED_HEADERS = ['content-type', 'accept', 'authorization', API_KEY_HEADER, REQUEST_ID_HEADER, ...CSRF_HEADERS].join(
  ', ',
);
/** A browser app may read the request id, to show it or report it with an error. */
export const CORS_EXPOSED_HEADERS = `retry-after, www-authenticate, ${REQUEST_ID_HEADER}`;
/** How long browsers may cache a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * Which browser origins may read answers, from CORS_ALLOWED_ORIGINS: exact
 * origins, or `*` for any. A plain function of the Origin header so that any
 * answer, whichever part of the server produces it, gets the same headers.
 */
export interface CorsPolicy {
  /** A plain function, safe to pass on by itself. */
  allows: (origin: string) => boolean;
  /** Headers for an answer to a request from `origin` (none when it is not allowed). */
  headers(origin: string | undefined): Record<string, string>;
  /** Headers for a preflight from an allowed `origin`. */
  preflightHeaders(origin: string): Record<string, string>;
}

export function createCorsPolicy(allowedOrigins: readonly string[]): CorsPolicy {
  const any = allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins);
  // Answers differ by origin unless every origin gets the same `*`.
  const vary: Record<string, string> = any || allowed.size === 0 ? {} : { vary: 'Origin' };
  const allows = (origin: string) => any || allowed.has(origin);
  const headers = (origin: string | undefined): Record<string, string> =>
    origin !== undefined && allows(origin)
      ? { ...vary, 'access-control-allow-origin': any ? '*' : origin, 'access-control-expose-headers': CORS_EXPOSED_HEADERS }
      : vary;
  return {
    allows,
    headers,
    preflightHeaders: (origin) => ({
      ...headers(origin),
      'access-control-allow-methods': CORS_ALLOWED_METHODS,
      'access-control-allow-headers': CORS_ALLOWED_HEADERS,
      'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
    }),
  };
}

/** `https://app.example.com`: scheme, host and port only, as browsers send it in Origin. */
export function isOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
}
