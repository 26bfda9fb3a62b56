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

/** RFC 3986's host (a name, IPv4 address or bracketed IPv6 address) and optional port: no user, path, query or fragment. */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::\d*)?$/;

/**
 * Whether the Host header can stand as a URL's authority. Routing ignores it,
 * but Yoga builds the request's URL from it, and one that does not parse
 * (`x:99999999`, `a b`) failed there; one with a path or query in it (`a/b`,
 * `x?y`) would move Yoga's idea of the path away from the one routed here.
 * An absent Host is valid only in HTTP/1.0: HTTP/1.1 requires one (RFC 9112, 3.2).
 */
export function isValidHost(host: string | undefined, httpVersion: string): boolean {
  if (host === undefined) return httpVersion === '1.0';
  if (host === lastValidHost) return true;
  const valid = AUTHORITY.test(host) && URL.canParse(`http://${host}/`);
  if (valid) lastValidHost = host;
  return valid;
}

/** `Expect: 100-continue`, the one expectation served, matched as Node matches it. */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i;

/** Whether an `Expect` header asks for something other than `100 Continue`, which no answer here can meet. */
export function isUnmetExpectation(expect: string | undefined): expect is string {
  return expect !== undefined && !CONTINUE_EXPECTATION.test(expect);
}

/** The last Host found valid: clients send the same one on every request. One entry, a header's length at most. */
let lastValidHost: string | undefined;
