import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from 'jose';
import { createKeyFetcher, TokenKeysUnavailableError } from './jwks-fetch.js';

/** How bearer tokens are checked: always issuer and audience, with keys from a JWKS URL or one shared HS256 secret. */
export interface JwtSettings {
  issuer: string;
  audience: string;
  key: { jwksUrl: URL } | { secret: string };
}

/** How JWT_* ask bearer tokens to be checked: issuer and audience, with a key set or a secret; none unless both are set. */
export function jwtSettingsOf(
  issuer: string | undefined,
  audience: string | undefined,
  jwksUrl: URL | undefined,
  secret: string | undefined,
): JwtSettings | undefined {
  if (issuer === undefined || audience === undefined) return undefined;
  if (jwksUrl !== undefined) return { issuer, audience, key: { jwksUrl } };
  return secret === undefined ? undefined : { issuer, audience, key: { secret } };
}

/** Shortest HS256 secret accepted: 256 bits, as RFC 7518 asks for. */
export const MIN_JWT_SECRET_LENGTH = 32;
/** Leeway for clocks that disagree on `exp` and `nbf`. */
export const JWT_CLOCK_TOLERANCE_SECONDS = 5;
/** Signature algorithms accepted from a JWKS; `none` and HMAC never are, so a public key cannot be used as a secret. */
export const JWKS_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** The token is not acceptable; the message says why without quoting it. The client gets it as an UnauthenticatedError. */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
}

export type JwtVerifier = (token: string) => Promise<{ subject: string }>;

/** Whether two settings check tokens alike: a verifier made for one serves the other, and a JWKS's keys fetched for it are kept. */
export function sameJwtSettings(a: JwtSettings | undefined, b: JwtSettings | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const keyOf = ({ key }: JwtSettings) => ('jwksUrl' in key ? `jwks ${key.jwksUrl.href}` : `secret ${key.secret}`);
  return a.issuer === b.issuer && a.audience === b.audience && keyOf(a) === keyOf(b);
}

export function createJwtVerifier(settings: JwtSettings): JwtVerifier {
  const verify = keyedVerify(settings);
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await verify(token));
    } catch (error) {
      throw keysUnavailable(error) ? unavailable(error) : invalid(error);
    }
    return { subject: subjectOf(payload) };
  };
}

/**
 * jose checks only that `sub` is there. Anything but a non-empty string would
 * name its client `sub:[object Object]` or `sub:`, one rate-limit bucket
 * shared by every such token.
 */
function subjectOf({ sub }: JWTPayload): string {
  if (typeof sub !== 'string' || sub === '') throw new InvalidTokenError('The bearer token\'s "sub" claim must be a non-empty string');
  return sub;
}

function keyedVerify({ issuer, audience, key }: JwtSettings) {
  const common = { issuer, audience, clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS, requiredClaims: ['sub', 'exp'] };
  if ('jwksUrl' in key) {
    const jwks = createRemoteJWKSet(key.jwksUrl, { [customFetch]: createKeyFetcher() });
    const options = { ...common, algorithms: JWKS_ALGORITHMS };
    return (token: string) => jwtVerify(token, jwks, options);
  }
  const secret = new TextEncoder().encode(key.secret);
  const options = { ...common, algorithms: ['HS256'] };
  return (token: string) => jwtVerify(token, secret, options);
}

function keysUnavailable(error: unknown): boolean {
  return (
    error instanceof TokenKeysUnavailableError ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    // jose's plain JOSEError comes only from fetching the JWKS: an answer other than 200, or one that is not JSON.
    (error instanceof errors.JOSEError && error.code === errors.JOSEError.code)
  );
}

function unavailable(error: unknown): TokenKeysUnavailableError {
  return new TokenKeysUnavailableError(
    `Could not get the keys to check bearer tokens: ${error instanceof Error ? error.message : String(error)}`,
  );
}

function invalid(error: unknown): InvalidTokenError {
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('The bearer token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new InvalidTokenError(`The bearer token's "${error.claim}" claim is ${error.reason === 'missing' ? 'missing' : 'not accepted'}`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new InvalidTokenError("The bearer token's signature algorithm is not accepted");
  if (error instanceof errors.JWSSignatureVerificationFailed) return new InvalidTokenError("The bearer token's signature is not valid");
  if (error instanceof errors.JWKSNoMatchingKey) return new InvalidTokenError('The bearer token is not signed by a known key');
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return new InvalidTokenError('The bearer token does not name its key ("kid") and more than one key could have signed it');
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) {
    return new InvalidTokenError('The bearer token is not a valid signed JWT');
  }
  return new InvalidTokenError('The bearer token is not valid');
}
