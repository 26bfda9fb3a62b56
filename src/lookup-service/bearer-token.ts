const BEARER = /^Bearer +([^\s]+) *$/i;

type BearerTokenCheck = { ok: true; token: string } | { ok: false; message: string };

/** The token of an `Authorization: Bearer <token>` header. */
export function readBearerToken(header: string | undefined): BearerTokenCheck {
  if (header === undefined || header === '') return { ok: false, message: 'Missing bearer token' };
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) return { ok: false, message: 'Malformed Authorization header: expected "Bearer <token>"' };
  return { ok: true, token };
}
