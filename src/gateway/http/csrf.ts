import type { IncomingHttpHeaders } from 'node:http';
import { excerpt } from '../../errors/excerpt.js';
import { CrossSiteRequestRefusedError, UnsupportedMediaTypeError } from '../../errors/http-refusals.js';
import type { Refusal } from '../../errors/refusal.js';

/** Headers a browser cannot add without a CORS preflight; any one of them marks a request as deliberate. */
export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight'];

/** Content types a cross-site page can POST without a preflight. */
const SIMPLE_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

/**
 * The refusal of a request that looks like a cross-site request forgery, or
 * undefined when it does not. Browsers say where a request comes from in
 * Sec-Fetch-Site; a cross-site one is refused unless `allowsOrigin` (the CORS
 * policy) allows its Origin, except a GET that navigates (following a link to
 * GraphiQL). A POST a page could send without a preflight (a form or text
 * body) needs one of CSRF_HEADERS, the rule of Yoga's CSRF plugin. Sent by a
 * browser (it names an Origin), that is a cross-site refusal; sent without one,
 * it is nearly always a command-line client that did not say its body is JSON
 * (`curl -d` sends a form's content type), and it is told to.
 */
export function crossSiteRefusal(
  method: string,
  headers: IncomingHttpHeaders,
  allowsOrigin: (origin: string) => boolean,
): Refusal | undefined {
  const site = headers['sec-fetch-site'];
  const origin = headers.origin;
  if (site === 'cross-site' || site === 'same-site') {
    if (origin !== undefined && allowsOrigin(origin)) return undefined;
    if ((method === 'GET' || method === 'HEAD') && headers['sec-fetch-mode'] === 'navigate') return undefined;
    return new CrossSiteRequestRefusedError(
      origin === undefined
        ? 'Cross-site requests are refused unless they come from an origin in CORS_ALLOWED_ORIGINS'
        : `Cross-site requests from ${excerpt(origin)} are refused: it is not in CORS_ALLOWED_ORIGINS; call from an allowed origin, or ask the gateway's operators to add it`,
    );
  }
  if (site !== undefined || method !== 'POST') return undefined;
  const contentType = (headers['content-type'] ?? '').toLowerCase();
  if (!SIMPLE_CONTENT_TYPES.some((type) => contentType.startsWith(type))) return undefined;
  if (CSRF_HEADERS.some((name) => headers[name] !== undefined)) return undefined;
  if (origin === undefined) {
    return new UnsupportedMediaTypeError(
      contentType,
      'application/json',
      `add the header Content-Type: application/json (curl -d sends a form's type unless told otherwise); a form or text body is read only with one of the headers ${CSRF_HEADERS.join(', ')}`,
    );
  }
  return new CrossSiteRequestRefusedError(
    `A POST with content type ${excerpt(contentType)} needs one of the headers ${CSRF_HEADERS.join(', ')} (CSRF prevention); send application/json instead`,
  );
}
