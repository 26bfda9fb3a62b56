/** A request target in absolute form (RFC 9112, 3.2.2), as clients talking to a proxy send it: scheme and authority, then the rest. */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*(.*)$/is;

/**
 * The request target in origin form, `/path?query`, which is all routing
 * looks at. A server must accept the absolute form too: its path and query
 * are taken as sent, unnormalized like any origin-form target, and its
 * authority, like the Host header, plays no part here.
 */
export function originForm(target: string): string {
  const rest = ABSOLUTE_FORM.exec(target)?.[1];
  if (rest === undefined) return target;
  return rest.startsWith('/') ? rest : `/${rest}`;
}
