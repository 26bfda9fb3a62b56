import { createRemoteJWKSet, errors, jwtVerify } from 'jose';

/** How bearer tokens are checked: always issuer and audience, with keys from a JWKS URL or one shared HS256 secret. */
export interface JwtSettings {
  issuer: string;
  audience: string;
  key: { jwksUrl: URL } | { secret: string };
}

/** Shortest HS256 secret accepted: 256 bits, as RFC 7518 asks for. */
export const MIN_JWT_SECRET_LENGTH = 32;
/** Leeway for clocks that disagree on `exp` and `nbf`. */
export const JWT_CLOCK_TOLERANCE_SECONDS = 5;
/** Signature algorithms accepted from a JWKS; `none` and HMAC never are, so a public key cannot be used as a secret. */
export const JWKS_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** The token is not acceptable; the message says why without quoting it. */
export class InvalidTokenError extends Error {
  readonly code = 'INVALID_TOKEN';
}

/** The keys to check the token with could not be fetched; not the client's fault. */
export class TokenKeysUnavailableError extends Error {
  readonly code = 'TOKEN_KEYS_UNAVAILABLE';
}

export type JwtVerifier = (token: string) => Promise<{ subject: string }>;

export function createJwtVerifier(settings: JwtSettings): JwtVerifier {
  const verify = keyedVerify(settings);
  return async (token) => {
    try {
      const { payload } = await verify(token);
      // requiredClaims guarantees `sub`.
      return { subject: payload.sub! };
    } catch (error) {
      throw classify(error);
    }
  };
}

function keyedVerify({ issuer, audience, key }: JwtSettings) {
  const common = { issuer, audience, clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS, requiredClaims: ['sub', 'exp'] };
  if ('jwksUrl' in key) {
    const jwks = createRemoteJWKSet(key.jwksUrl);
    return (token: string) => jwtVerify(token, jwks, { ...common, algorithms: JWKS_ALGORITHMS });
  }
  const secret = new TextEncoder().encode(key.secret);
  return (token: string) => jwtVerify(token, secret, { ...common, algorithms: ['HS256'] });
}

function classify(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('The bearer token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new InvalidTokenError(`The bearer token's "${error.claim}" claim is ${error.reason === 'missing' ? 'missing' : 'not accepted'}`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new InvalidTokenError("The bearer token's signature algorithm is not accepted");
  if (error instanceof errors.JWSSignatureVerificationFailed) return new InvalidTokenError("The bearer token's signature is not valid");
  if (error instanceof errors.JWKSNoMatchingKey) return new InvalidTokenError('The bearer token is not signed by a known key');
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) {
    return new InvalidTokenError('The bearer token is not a valid signed JWT');
  }
  return new TokenKeysUnavailableError(
    `Could not get the keys to check bearer tokens: ${error instanceof Error ? error.message : String(error)}`,
  );
}
