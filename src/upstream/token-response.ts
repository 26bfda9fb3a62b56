import { UpstreamBadResponseError } from '../errors/upstream-errors.js';

export interface TokenResponse {
  accessToken: string;
  /** The lifetime the upstream gave, in ms; undefined when it gave none the gateway can use. */
  expiresInMs: number | undefined;
  /** What was odd about the answer, though it was usable; for the log. */
  notes: string[];
}

const DECIMAL = /^\d+(?:\.\d+)?$/;
/** Visible ASCII only: the token goes into an Authorization header as it is. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;
/** Far above any real token; longer ones would be sent with every search and kept for redaction. */
export const MAX_ACCESS_TOKEN_LENGTH = 16_384;

/** Whether `token` can go into an Authorization header as it is: any token the gateway uses, from the upstream or the fleet's store. */
export function isSendableToken(token: string): boolean {
  return token.length <= MAX_ACCESS_TOKEN_LENGTH && HEADER_SAFE.test(token);
}

/**
 * Reads a token answer as tolerantly as RFC 6749 allows: `expires_in` is only
 * RECOMMENDED, so a missing one, or one the gateway cannot read, leaves the
 * lifetime to the caller (a numeric string is read as its number); a
 * token_type is compared case-insensitively, and a missing one is taken for
 * Bearer, the only kind the interface knows. Only an answer without a token
 * the gateway can send, or with a token of another kind, is unusable.
 */
export function readTokenResponse(body: string, where: string): TokenResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new UpstreamBadResponseError(`Company lookup service sent a token response that is not JSON on ${where}`);
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn } = fields;
  if (typeof accessToken !== 'string' || accessToken.trim() === '') {
    throw new UpstreamBadResponseError(`Company lookup service sent a token response without access_token on ${where}`);
  }
  if (!isSendableToken(accessToken)) {
    throw new UpstreamBadResponseError(`Company lookup service sent an access_token that cannot be sent in a header on ${where}`);
  }
  const notes: string[] = [];
  if (tokenType === undefined || tokenType === null) {
    notes.push('no token_type; taken for Bearer');
  } else if (typeof tokenType !== 'string' || tokenType.trim().toLowerCase() !== 'bearer') {
    throw new UpstreamBadResponseError(`Company lookup service sent a token_type other than Bearer on ${where}`);
  }
  const seconds = typeof expiresIn === 'string' && DECIMAL.test(expiresIn.trim()) ? Number(expiresIn.trim()) : expiresIn;
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) {
    if (typeof expiresIn === 'string') notes.push('expires_in sent as a string');
    return { accessToken, expiresInMs: seconds * 1_000, notes };
  }
  notes.push(expiresIn === undefined || expiresIn === null ? 'no expires_in' : 'expires_in unusable');
  return { accessToken, expiresInMs: undefined, notes };
}
