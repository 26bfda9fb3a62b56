import type { IncomingHttpHeaders } from 'node:http';
import { AuthUnavailableError, UnauthenticatedError } from '../../errors/access-refusals.js';
import { API_KEY_HEADER, ApiKeyMatcher, type ApiKey } from './api-keys.js';
import { createJwtVerifier, InvalidTokenError, type JwtSettings, type JwtVerifier } from './jwt.js';

export interface AccessSettings {
  apiKeys: readonly ApiKey[];
  jwt: JwtSettings | undefined;
  allowAnonymous: boolean;
}

/** Who is calling, as rate limits and logs name them; never a credential. */
export interface Client {
  kind: 'api-key' | 'jwt' | 'anonymous';
  /** `key:<id>`, `sub:<subject>` or `ip:<address>`. */
  key: string;
}

export type AccessDecision = { allowed: true; client: Client } | { allowed: false; refusal: UnauthenticatedError | AuthUnavailableError };

export const AUTH_REALM = 'company-search';

/** A decision, or a promise of one where a bearer token is verified: an API key or anonymous access waits for nothing. */
export type AccessPolicy = (headers: IncomingHttpHeaders, address: string) => AccessDecision | Promise<AccessDecision>;

/** What to do about a bearer token refused for what it says or how it is signed. */
const NEW_TOKEN = 'get a new token from the issuer this gateway trusts';

/** `Bearer <token>`, the token in the b64token syntax of RFC 6750. */
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/**
 * Decides from the request headers alone whether a request may proceed. A
 * client sends at most one credential: an API key in `x-api-key` or a bearer
 * token in `Authorization`. `verifyJwt`: a verifier made for the same JWT
 * settings before (a reload keeps it, with the JWKS keys it has fetched).
 */
export function createAccessPolicy(
  settings: AccessSettings,
  verifyJwt: JwtVerifier | undefined = settings.jwt && createJwtVerifier(settings.jwt),
): AccessPolicy {
  const challenges = [
    ...(verifyJwt ? [`Bearer realm="${AUTH_REALM}"`] : []),
    ...(settings.apiKeys.length > 0 ? [`ApiKey realm="${AUTH_REALM}", header="${API_KEY_HEADER}"`] : []),
  ];
  const challenge = challenges.join(', ') || `Bearer realm="${AUTH_REALM}"`;
  const credentialRequired =
    settings.apiKeys.length > 0 && verifyJwt
      ? `An API key (${API_KEY_HEADER} header) or a bearer token (Authorization header) is required`
      : settings.apiKeys.length > 0
        ? `An API key is required in the ${API_KEY_HEADER} header`
        : 'A bearer token is required in the Authorization header';
  // The configuration always lets some request through (config/access-settings.ts): with JWT, API keys or anonymous access.
  const insteadOfKey = verifyJwt ? 'send a bearer token in the Authorization header instead' : 'send the request without it';
  const insteadOfToken =
    settings.apiKeys.length > 0 ? `send an API key in the ${API_KEY_HEADER} header instead` : 'send the request without it';
  /** `bearerError`: why a bearer token was refused, for WWW-Authenticate's error_description. */
  const deny = (message: string, bearerError?: string): AccessDecision => ({
    allowed: false,
    refusal: new UnauthenticatedError(
      message,
      bearerError && verifyJwt
        ? `Bearer realm="${AUTH_REALM}", error="invalid_token", error_description="${quotedStringContent(bearerError)}"`
        : challenge,
    ),
  });

  const apiKeys = new ApiKeyMatcher(settings.apiKeys);
  // One decision per key, made once: the same for every request presenting it, and never changed by a caller.
  const keyDecisions = new Map<string, AccessDecision>(
    settings.apiKeys.map(({ id }) => [id, { allowed: true, client: { kind: 'api-key', key: `key:${id}` } }]),
  );

  const verifyBearer = async (token: string): Promise<AccessDecision> => {
    try {
      const { subject } = await verifyJwt!(token);
      return { allowed: true, client: { kind: 'jwt', key: `sub:${subject}` } };
    } catch (error) {
      if (error instanceof InvalidTokenError) return deny(`${error.message}; ${NEW_TOKEN}`, error.message);
      return { allowed: false, refusal: new AuthUnavailableError(error instanceof Error ? error.message : String(error)) };
    }
  };

  return (headers, address) => {
    const apiKey = headers[API_KEY_HEADER];
    const authorization = headers.authorization;
    if (apiKey !== undefined && authorization !== undefined) {
      return deny(`Send either an ${API_KEY_HEADER} header or an Authorization header, not both`);
    }
    if (apiKey !== undefined) {
      if (settings.apiKeys.length === 0) return deny(`This gateway does not accept API keys; ${insteadOfKey}`);
      const id = typeof apiKey === 'string' ? apiKeys.match(apiKey.trim()) : undefined;
      return (id !== undefined && keyDecisions.get(id)) || deny("The API key is not valid; send a key the gateway's operators gave you");
    }
    if (authorization !== undefined) {
      if (!verifyJwt) return deny(`This gateway does not accept bearer tokens; ${insteadOfToken}`);
      const match = BEARER.exec(authorization);
      if (!match) return deny('The Authorization header must be "Bearer <token>"', 'The Authorization header must be a bearer token');
      return verifyBearer(match[1]!);
    }
    if (settings.allowAnonymous) return { allowed: true, client: { kind: 'anonymous', key: `ip:${address}` } };
    return deny(credentialRequired);
  };
}

/** Escapes a value for an HTTP quoted-string (RFC 9110, 5.6.4). */
function quotedStringContent(value: string): string {
  return value.replace(/["\\]/g, '\\$&');
}
