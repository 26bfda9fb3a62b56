import { type ApiKey, parseApiKeys } from '../access/api-keys.js';
import { type JwtSettings, MIN_JWT_SECRET_LENGTH } from '../access/jwt.js';
import type { EnvReader } from './env-reader.js';

/** Who may call the gateway: API keys, bearer tokens, anonymous clients. */
export interface AccessSettings {
  /** Only hashes: the keys themselves are not kept. */
  apiKeys: ApiKey[];
  jwt: JwtSettings | undefined;
  allowAnonymous: boolean;
}

/** JWKS keys fetched in the clear could be replaced on the way, except over loopback. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The settings of bearer tokens; setting any of them is an attempt to accept them. */
const JWT_SETTINGS = ['JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_JWKS_URL', 'JWT_SECRET'];

/**
 * In production, anonymous access is never the default: it must be chosen, or
 * credentials configured. Credentials that were set but refused have their own
 * problem lines; the gateway does not also say that none were set.
 */
export function readAccessSettings(reader: EnvReader, production: boolean): AccessSettings {
  const apiKeys = readApiKeys(reader);
  const jwt = readJwt(reader);
  const anonymousGiven = reader.given('ALLOW_ANONYMOUS');
  const allowAnonymous = reader.boolean('ALLOW_ANONYMOUS', !production && apiKeys.length === 0 && jwt === undefined);
  const credentialsGiven = reader.given('GATEWAY_API_KEYS') || JWT_SETTINGS.some((name) => reader.given(name));
  if (!allowAnonymous && !credentialsGiven && !reader.refused('ALLOW_ANONYMOUS')) {
    reader.problem(
      anonymousGiven
        ? 'ALLOW_ANONYMOUS=false needs GATEWAY_API_KEYS or JWT_ISSUER/JWT_AUDIENCE with JWT_JWKS_URL or JWT_SECRET, or nobody could call the gateway'
        : 'NODE_ENV=production needs client access decided: set GATEWAY_API_KEYS, or JWT_ISSUER/JWT_AUDIENCE with JWT_JWKS_URL or JWT_SECRET, or ALLOW_ANONYMOUS=true to serve anyone',
    );
  }
  return { apiKeys, jwt, allowAnonymous };
}

function readApiKeys(reader: EnvReader): ApiKey[] {
  const raw = reader.string('GATEWAY_API_KEYS');
  if (raw === undefined) return [];
  const { keys, problems } = parseApiKeys('GATEWAY_API_KEYS', raw);
  for (const problem of problems) reader.refuse('GATEWAY_API_KEYS', problem);
  return problems.length === 0 ? keys : [];
}

function readJwt(reader: EnvReader): JwtSettings | undefined {
  const issuer = reader.string('JWT_ISSUER');
  const audience = reader.string('JWT_AUDIENCE');
  const jwksUrl = readJwksUrl(reader);
  const secret = reader.string('JWT_SECRET');
  const jwksGiven = reader.given('JWT_JWKS_URL');
  if (issuer === undefined && audience === undefined && !jwksGiven && secret === undefined) return undefined;
  const before = reader.problems.length;
  if (issuer === undefined) reader.problem('JWT_ISSUER is required to accept bearer tokens');
  if (audience === undefined) reader.problem('JWT_AUDIENCE is required to accept bearer tokens');
  if (jwksGiven === (secret !== undefined)) reader.problem('Set exactly one of JWT_JWKS_URL and JWT_SECRET to accept bearer tokens');
  // The secret is never echoed, only measured.
  if (secret !== undefined && secret.length < MIN_JWT_SECRET_LENGTH) {
    reader.refuse('JWT_SECRET', `JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters long`);
  }
  if (reader.problems.length > before || issuer === undefined || audience === undefined) return undefined;
  if (jwksUrl !== undefined) return { issuer, audience, key: { jwksUrl } };
  return secret === undefined ? undefined : { issuer, audience, key: { secret } };
}

/** https, or http to a loopback address. */
function readJwksUrl(reader: EnvReader): URL | undefined {
  const url = reader.url('JWT_JWKS_URL');
  if (url === undefined || url.protocol === 'https:' || LOOPBACK_HOSTS.includes(url.hostname)) return url;
  reader.refuse('JWT_JWKS_URL', 'JWT_JWKS_URL must be an https:// URL (http:// only to localhost)');
  return undefined;
}
