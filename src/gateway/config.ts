import { isIP } from 'node:net';
import { parseApiKeys, type ApiKey } from './access/api-keys.js';
import { MIN_JWT_SECRET_LENGTH, type JwtSettings } from './access/jwt.js';
import { isOrigin } from './http/cors.js';
import { readTrustedDocuments, type TrustedDocuments } from './graphql/trusted-documents.js';

/**
 * The gateway's settings, read from environment variables and checked before
 * anything starts. Each default is a named constant below; README.md's
 * settings table mirrors them.
 */
export interface GatewayConfig {
  host: string;
  port: number;
  /** How long a client may take to send its request headers; at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** How long a client may take to send its whole request, headers and body. */
  requestTimeoutMs: number;
  /** Connections served at once; a few more are answered 503 TOO_MANY_CONNECTIONS, the rest closed at once. */
  maxConnections: number;
  /** After refusing a request whose body is still coming, how long and how much of it is read and thrown away so the client sees the answer. */
  refusalLingerMs: number;
  refusalLingerBytes: number;
  /** Absent: run the embedded lookup service and front it. */
  upstream: UpstreamTarget | undefined;
  upstreamPageParam: string | undefined;
  upstreamConnections: number;
  upstreamConnectTimeoutMs: number;
  upstreamHeadersTimeoutMs: number;
  upstreamBodyTimeoutMs: number;
  requestDeadlineMs: number;
  upstreamMaxInFlight: number;
  upstreamRetries: number;
  upstreamRetryBaseMs: number;
  upstreamBreakerFailures: number;
  upstreamBreakerCooldownMs: number;
  /** Cap of any Retry-After from the upstream: on retries and on the circuit breaker's cool-down. */
  upstreamMaxRetryAfterMs: number;
  tokenRefusedCooldownMs: number;
  /** How long a token without a usable `expires_in` is used. */
  upstreamTokenDefaultLifetimeMs: number;
  /** Bounds of a token's lifetime, whatever `expires_in` says. */
  upstreamTokenMinLifetimeMs: number;
  upstreamTokenMaxLifetimeMs: number;
  cacheTtlMs: number;
  cacheStaleWhileRevalidateMs: number;
  cacheStaleIfErrorMs: number;
  cacheMaxBytes: number;
  responseCache: boolean;
  searchMaxQueryLength: number;
  logLevel: LogLevel;
  /** NODE_ENV=production: masked errors without stack traces, no field suggestions, GraphiQL and introspection off unless set. */
  production: boolean;
  graphiql: boolean;
  introspection: boolean;
  maxBodyBytes: number;
  maxDocumentLength: number;
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  maxTokens: number;
  /** Most selections a document may hold once its fragments are expanded where they are spread. */
  maxExpandedSelections: number;
  maxUpstreamSearches: number;
  /** Most operations in one batched request; 0: batching off. */
  batchingLimit: number;
  /** Origins browsers may read answers from; `*` for any. */
  corsAllowedOrigins: string[];
  /** Only hashes: the keys themselves are not kept. */
  apiKeys: ApiKey[];
  jwt: JwtSettings | undefined;
  allowAnonymous: boolean;
  /** 0: no rate limit. */
  rateLimitPerMinute: number;
  rateLimitBurst: number;
  rateLimitMaxClients: number;
  /** Reverse proxies in front whose X-Forwarded-For entries are believed. */
  trustedProxyCount: number;
  trustedDocuments: TrustedDocuments | undefined;
  allowArbitraryOperations: boolean;
}

export interface UpstreamTarget {
  url: URL;
  clientId: string;
  clientSecret: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_CONNECTIONS = 1_024;
export const DEFAULT_REFUSAL_LINGER_MS = 3_000;
export const DEFAULT_REFUSAL_LINGER_BYTES = 8 * 1024 * 1024;
export const DEFAULT_UPSTREAM_CONNECTIONS = 10;
export const DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS = 2_000;
export const DEFAULT_UPSTREAM_HEADERS_TIMEOUT_MS = 5_000;
export const DEFAULT_UPSTREAM_BODY_TIMEOUT_MS = 5_000;
export const DEFAULT_CACHE_TTL_MS = 300_000;
export const DEFAULT_CACHE_STALE_WHILE_REVALIDATE_MS = 60_000;
export const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_CACHE_STALE_IF_ERROR_MS = 3_600_000;
export const DEFAULT_REQUEST_DEADLINE_MS = 10_000;
export const DEFAULT_UPSTREAM_MAX_IN_FLIGHT = 8;
export const DEFAULT_UPSTREAM_RETRIES = 2;
export const DEFAULT_UPSTREAM_RETRY_BASE_MS = 200;
export const DEFAULT_UPSTREAM_BREAKER_FAILURES = 5;
export const DEFAULT_UPSTREAM_BREAKER_COOLDOWN_MS = 10_000;
export const DEFAULT_UPSTREAM_MAX_RETRY_AFTER_MS = 60_000;
export const DEFAULT_TOKEN_REFUSED_COOLDOWN_MS = 30_000;
export const DEFAULT_UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS = 300_000;
export const DEFAULT_UPSTREAM_TOKEN_MIN_LIFETIME_MS = 10_000;
export const DEFAULT_UPSTREAM_TOKEN_MAX_LIFETIME_MS = 3_600_000;
export const DEFAULT_SEARCH_MAX_QUERY_LENGTH = 200;
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';
export const NODE_ENVS = ['development', 'production', 'test'] as const;
export const DEFAULT_MAX_BODY_BYTES = 102_400;
export const DEFAULT_MAX_DOCUMENT_LENGTH = 10_000;
export const DEFAULT_MAX_DEPTH = 10;
export const DEFAULT_MAX_ALIASES = 15;
export const DEFAULT_MAX_DIRECTIVES = 20;
export const DEFAULT_MAX_TOKENS = 1_000;
/**
 * 50 times the largest operation in test/operations (40 selections), and
 * twice what DEFAULT_MAX_TOKENS lets a document write out without fragments,
 * so it bites only where fragments are spread over and over.
 */
export const DEFAULT_MAX_EXPANDED_SELECTIONS = 2_000;
export const DEFAULT_MAX_UPSTREAM_SEARCHES = 5;
export const DEFAULT_BATCHING_LIMIT = 0;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
export const DEFAULT_RATE_LIMIT_BURST = 100;
export const DEFAULT_RATE_LIMIT_MAX_CLIENTS = 10_000;
export const DEFAULT_TRUSTED_PROXY_COUNT = 0;

/** Every problem found in the environment, one line each. */
export class ConfigError extends Error {
  readonly code = 'INVALID_CONFIG';

  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const PARAMETER_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const SEARCH_PARAMETERS = ['q', 'jurisdiction', 'pageSize'];
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export function readConfig(env: Env = process.env): GatewayConfig {
  const problems: string[] = [];
  const reader = new EnvReader(env, problems);
  const config: GatewayConfig = {
    host: reader.host('HOST') ?? DEFAULT_HOST,
    port: reader.integer('PORT', DEFAULT_PORT, 0, 65_535),
    ...readHttpServer(reader, problems),
    upstream: readUpstreamTarget(reader, problems),
    upstreamPageParam: reader.pageParam('UPSTREAM_PAGE_PARAM'),
    upstreamConnections: reader.integer('UPSTREAM_CONNECTIONS', DEFAULT_UPSTREAM_CONNECTIONS, 1, 1_024),
    upstreamConnectTimeoutMs: reader.integer('UPSTREAM_CONNECT_TIMEOUT_MS', DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS, 1, 600_000),
    upstreamHeadersTimeoutMs: reader.integer('UPSTREAM_HEADERS_TIMEOUT_MS', DEFAULT_UPSTREAM_HEADERS_TIMEOUT_MS, 1, 600_000),
    upstreamBodyTimeoutMs: reader.integer('UPSTREAM_BODY_TIMEOUT_MS', DEFAULT_UPSTREAM_BODY_TIMEOUT_MS, 1, 600_000),
    requestDeadlineMs: reader.integer('REQUEST_DEADLINE_MS', DEFAULT_REQUEST_DEADLINE_MS, 1, 600_000),
    upstreamMaxInFlight: reader.integer('UPSTREAM_MAX_IN_FLIGHT', DEFAULT_UPSTREAM_MAX_IN_FLIGHT, 1, 1_024),
    upstreamRetries: reader.integer('UPSTREAM_RETRIES', DEFAULT_UPSTREAM_RETRIES, 0, 10),
    upstreamRetryBaseMs: reader.integer('UPSTREAM_RETRY_BASE_MS', DEFAULT_UPSTREAM_RETRY_BASE_MS, 1, 60_000),
    upstreamBreakerFailures: reader.integer('UPSTREAM_BREAKER_FAILURES', DEFAULT_UPSTREAM_BREAKER_FAILURES, 1, 1_000),
    upstreamBreakerCooldownMs: reader.integer(
      'UPSTREAM_BREAKER_COOLDOWN_MS',
      DEFAULT_UPSTREAM_BREAKER_COOLDOWN_MS,
      1,
      3_600_000,
    ),
    upstreamMaxRetryAfterMs: reader.integer('UPSTREAM_MAX_RETRY_AFTER_MS', DEFAULT_UPSTREAM_MAX_RETRY_AFTER_MS, 0, 3_600_000),
    tokenRefusedCooldownMs: reader.integer('TOKEN_REFUSED_COOLDOWN_MS', DEFAULT_TOKEN_REFUSED_COOLDOWN_MS, 0, 3_600_000),
    ...readTokenLifetime(reader, problems),
    cacheTtlMs: reader.integer('CACHE_TTL_MS', DEFAULT_CACHE_TTL_MS, 1, 7 * 24 * 3_600_000),
    cacheStaleWhileRevalidateMs: reader.integer(
      'CACHE_STALE_WHILE_REVALIDATE_MS',
      DEFAULT_CACHE_STALE_WHILE_REVALIDATE_MS,
      0,
      7 * 24 * 3_600_000,
    ),
    cacheStaleIfErrorMs: reader.integer('CACHE_STALE_IF_ERROR_MS', DEFAULT_CACHE_STALE_IF_ERROR_MS, 0, 7 * 24 * 3_600_000),
    cacheMaxBytes: reader.integer('CACHE_MAX_BYTES', DEFAULT_CACHE_MAX_BYTES, 1_024, Number.MAX_SAFE_INTEGER),
    responseCache: reader.boolean('RESPONSE_CACHE', true),
    searchMaxQueryLength: reader.integer('SEARCH_MAX_QUERY_LENGTH', DEFAULT_SEARCH_MAX_QUERY_LENGTH, 1, 10_000),
    logLevel: reader.oneOf('LOG_LEVEL', LOG_LEVELS, DEFAULT_LOG_LEVEL),
    ...readProtection(reader, problems),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Client connections: how long a request may take to arrive, how many connections are served, how refusals end. */
function readHttpServer(reader: EnvReader, problems: string[]) {
  const headersTimeoutMs = reader.integer('HEADERS_TIMEOUT_MS', DEFAULT_HEADERS_TIMEOUT_MS, 100, 600_000);
  const requestTimeoutMs = reader.integer('REQUEST_TIMEOUT_MS', DEFAULT_REQUEST_TIMEOUT_MS, 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be more than REQUEST_TIMEOUT_MS (${requestTimeoutMs}), which covers the headers too`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    maxConnections: reader.integer('MAX_CONNECTIONS', DEFAULT_MAX_CONNECTIONS, 1, 1_000_000),
    refusalLingerMs: reader.integer('REFUSAL_LINGER_MS', DEFAULT_REFUSAL_LINGER_MS, 0, 60_000),
    refusalLingerBytes: reader.integer('REFUSAL_LINGER_BYTES', DEFAULT_REFUSAL_LINGER_BYTES, 0, 64 * 1024 * 1024),
  } satisfies Partial<GatewayConfig>;
}

function readUpstreamTarget(reader: EnvReader, problems: string[]): UpstreamTarget | undefined {
  const url = reader.url('UPSTREAM_URL');
  const clientId = reader.string('UPSTREAM_CLIENT_ID');
  const clientSecret = reader.string('UPSTREAM_CLIENT_SECRET');
  if (url === undefined) {
    const urlGiven = reader.string('UPSTREAM_URL') !== undefined;
    if (!urlGiven && (clientId !== undefined || clientSecret !== undefined)) {
      problems.push('UPSTREAM_CLIENT_ID and UPSTREAM_CLIENT_SECRET are set but UPSTREAM_URL is not; set UPSTREAM_URL too');
    }
    return undefined;
  }
  if (clientId === undefined) problems.push('UPSTREAM_CLIENT_ID is required when UPSTREAM_URL is set');
  if (clientSecret === undefined) problems.push('UPSTREAM_CLIENT_SECRET is required when UPSTREAM_URL is set');
  return clientId === undefined || clientSecret === undefined ? undefined : { url, clientId, clientSecret };
}

/** The bounds of a service token's lifetime, checked against each other. */
function readTokenLifetime(reader: EnvReader, problems: string[]) {
  const lifetime = {
    upstreamTokenDefaultLifetimeMs: reader.integer(
      'UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS',
      DEFAULT_UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS,
      1_000,
      86_400_000,
    ),
    upstreamTokenMinLifetimeMs: reader.integer('UPSTREAM_TOKEN_MIN_LIFETIME_MS', DEFAULT_UPSTREAM_TOKEN_MIN_LIFETIME_MS, 1_000, 86_400_000),
    upstreamTokenMaxLifetimeMs: reader.integer('UPSTREAM_TOKEN_MAX_LIFETIME_MS', DEFAULT_UPSTREAM_TOKEN_MAX_LIFETIME_MS, 1_000, 86_400_000),
  };
  const { upstreamTokenDefaultLifetimeMs: fallback, upstreamTokenMinLifetimeMs: min, upstreamTokenMaxLifetimeMs: max } = lifetime;
  if (min > max) {
    problems.push(`UPSTREAM_TOKEN_MIN_LIFETIME_MS (${min}) must not be greater than UPSTREAM_TOKEN_MAX_LIFETIME_MS (${max})`);
  } else if (fallback < min || fallback > max) {
    problems.push(
      `UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS (${fallback}) must lie from UPSTREAM_TOKEN_MIN_LIFETIME_MS (${min}) to UPSTREAM_TOKEN_MAX_LIFETIME_MS (${max})`,
    );
  }
  return lifetime;
}

/** Production mode, operation and HTTP limits, client access and trusted documents. */
function readProtection(reader: EnvReader, problems: string[]) {
  const production = reader.oneOf('NODE_ENV', NODE_ENVS, 'development') === 'production';
  const apiKeys = reader.apiKeys('GATEWAY_API_KEYS');
  const jwt = readJwt(reader, problems);
  const anonymousGiven = reader.string('ALLOW_ANONYMOUS') !== undefined;
  const allowAnonymous = reader.boolean('ALLOW_ANONYMOUS', !production && apiKeys.length === 0 && jwt === undefined);
  if (!allowAnonymous && apiKeys.length === 0 && jwt === undefined) {
    problems.push(
      anonymousGiven
        ? 'ALLOW_ANONYMOUS=false needs GATEWAY_API_KEYS or JWT_ISSUER/JWT_AUDIENCE with JWT_JWKS_URL or JWT_SECRET, or nobody could call the gateway'
        : 'NODE_ENV=production needs client access decided: set GATEWAY_API_KEYS, or JWT_ISSUER/JWT_AUDIENCE with JWT_JWKS_URL or JWT_SECRET, or ALLOW_ANONYMOUS=true to serve anyone',
    );
  }
  const trustedDocuments = reader.trustedDocuments('TRUSTED_DOCUMENTS');
  const allowArbitraryOperations = reader.boolean('ALLOW_ARBITRARY_OPERATIONS', trustedDocuments === undefined);
  if (!allowArbitraryOperations && trustedDocuments === undefined && reader.string('TRUSTED_DOCUMENTS') === undefined) {
    problems.push('ALLOW_ARBITRARY_OPERATIONS=false needs TRUSTED_DOCUMENTS, the manifest of the operations to allow');
  }
  return {
    production,
    graphiql: reader.boolean('GRAPHIQL', !production),
    introspection: reader.boolean('INTROSPECTION', !production),
    maxBodyBytes: reader.integer('MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1_024, 100 * 1024 * 1024),
    maxDocumentLength: reader.integer('MAX_DOCUMENT_LENGTH', DEFAULT_MAX_DOCUMENT_LENGTH, 100, 10_000_000),
    maxDepth: reader.integer('MAX_DEPTH', DEFAULT_MAX_DEPTH, 1, 1_000),
    maxAliases: reader.integer('MAX_ALIASES', DEFAULT_MAX_ALIASES, 0, 1_000),
    maxDirectives: reader.integer('MAX_DIRECTIVES', DEFAULT_MAX_DIRECTIVES, 0, 1_000),
    maxTokens: reader.integer('MAX_TOKENS', DEFAULT_MAX_TOKENS, 10, 1_000_000),
    maxExpandedSelections: reader.integer('MAX_EXPANDED_SELECTIONS', DEFAULT_MAX_EXPANDED_SELECTIONS, 1, 1_000_000),
    maxUpstreamSearches: reader.integer('MAX_UPSTREAM_SEARCHES', DEFAULT_MAX_UPSTREAM_SEARCHES, 1, 1_000),
    batchingLimit: reader.integer('BATCHING_LIMIT', DEFAULT_BATCHING_LIMIT, 0, 100),
    corsAllowedOrigins: reader.origins('CORS_ALLOWED_ORIGINS'),
    apiKeys,
    jwt,
    allowAnonymous,
    rateLimitPerMinute: reader.integer('RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMIT_PER_MINUTE, 0, 6_000_000),
    rateLimitBurst: reader.integer('RATE_LIMIT_BURST', DEFAULT_RATE_LIMIT_BURST, 1, 1_000_000),
    rateLimitMaxClients: reader.integer('RATE_LIMIT_MAX_CLIENTS', DEFAULT_RATE_LIMIT_MAX_CLIENTS, 1, 10_000_000),
    trustedProxyCount: reader.integer('TRUSTED_PROXY_COUNT', DEFAULT_TRUSTED_PROXY_COUNT, 0, 10),
    trustedDocuments,
    allowArbitraryOperations,
  } satisfies Partial<GatewayConfig>;
}

function readJwt(reader: EnvReader, problems: string[]): JwtSettings | undefined {
  const issuer = reader.string('JWT_ISSUER');
  const audience = reader.string('JWT_AUDIENCE');
  const jwksUrl = reader.jwksUrl('JWT_JWKS_URL');
  const secret = reader.string('JWT_SECRET');
  const jwksGiven = reader.string('JWT_JWKS_URL') !== undefined;
  if (issuer === undefined && audience === undefined && !jwksGiven && secret === undefined) return undefined;
  const before = problems.length;
  if (issuer === undefined) problems.push('JWT_ISSUER is required to accept bearer tokens');
  if (audience === undefined) problems.push('JWT_AUDIENCE is required to accept bearer tokens');
  if (jwksGiven === (secret !== undefined)) problems.push('Set exactly one of JWT_JWKS_URL and JWT_SECRET to accept bearer tokens');
  // The secret is never echoed, only measured.
  if (secret !== undefined && secret.length < MIN_JWT_SECRET_LENGTH) {
    problems.push(`JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters long`);
  }
  if (problems.length > before || issuer === undefined || audience === undefined) return undefined;
  if (jwksUrl !== undefined) return { issuer, audience, key: { jwksUrl } };
  return secret === undefined ? undefined : { issuer, audience, key: { secret } };
}

/** Reads one variable at a time, recording a precise problem for each bad value. */
class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  /** A set, non-blank value, trimmed; blank counts as unset. */
  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  host(name: string): string | undefined {
    const raw = this.string(name);
    if (raw === undefined || isIP(raw) !== 0 || HOSTNAME.test(raw)) return raw;
    this.problems.push(`${name} must be an IP address or a host name such as 0.0.0.0 or localhost, got ${JSON.stringify(raw)}`);
    return undefined;
  }

  pageParam(name: string): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!PARAMETER_NAME.test(raw)) {
      this.problems.push(`${name} must be a query parameter name such as page, got ${JSON.stringify(raw)}`);
    } else if (SEARCH_PARAMETERS.includes(raw)) {
      this.problems.push(`${name} must not be ${raw}, which the search already sends`);
    } else {
      return raw;
    }
    return undefined;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return value;
  }

  url(name: string): URL | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const url = URL.canParse(raw) ? new URL(raw) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      // The value may hold credentials (user:secret@host), so it is not echoed.
      this.problems.push(`${name} must be an http:// or https:// URL`);
      return undefined;
    }
    if (url.username || url.password || url.search || url.hash) {
      this.problems.push(`${name} must not carry credentials, a query or a fragment; give the base URL only`);
      return undefined;
    }
    return url;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    this.problems.push(`${name} must be true or false, got ${JSON.stringify(raw)}`);
    return fallback;
  }

  origins(name: string): string[] {
    const raw = this.string(name);
    if (raw === undefined) return [];
    const origins = raw.split(',').map((origin) => origin.trim());
    const bad = origins.filter((origin) => origin !== '*' && !isOrigin(origin));
    if (bad.length === 0) return origins;
    this.problems.push(
      `${name} must be * or origins such as https://app.example.com (scheme, host and port, no path), separated by commas; not ${bad.map((origin) => JSON.stringify(origin)).join(', ')}`,
    );
    return [];
  }

  apiKeys(name: string): ApiKey[] {
    const raw = this.string(name);
    if (raw === undefined) return [];
    const { keys, problems } = parseApiKeys(name, raw);
    this.problems.push(...problems);
    return problems.length === 0 ? keys : [];
  }

  /** https, or http to a loopback address: keys fetched in the clear could be replaced on the way. */
  jwksUrl(name: string): URL | undefined {
    const url = this.url(name);
    if (url === undefined || url.protocol === 'https:' || LOOPBACK_HOSTS.includes(url.hostname)) return url;
    this.problems.push(`${name} must be an https:// URL (http:// only to localhost)`);
    return undefined;
  }

  trustedDocuments(name: string): TrustedDocuments | undefined {
    const path = this.string(name);
    if (path === undefined) return undefined;
    try {
      return readTrustedDocuments(path);
    } catch (error) {
      this.problems.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
    return fallback;
  }
}

/**
 * The configuration as it may be printed or logged: the client secret and the
 * JWT secret are never included, API keys appear by id only (not even their
 * hashes), trusted documents by path and count.
 */
export function describeConfig(config: GatewayConfig): Record<string, unknown> {
  const { upstream, apiKeys, jwt, trustedDocuments, ...rest } = config;
  return {
    ...rest,
    upstream: upstream ? { url: upstream.url.href, clientId: upstream.clientId, clientSecret: '[redacted]' } : 'embedded',
    apiKeys: apiKeys.map((key) => key.id),
    jwt: jwt && {
      issuer: jwt.issuer,
      audience: jwt.audience,
      ...('jwksUrl' in jwt.key ? { jwksUrl: jwt.key.jwksUrl.href } : { secret: '[redacted]' }),
    },
    trustedDocuments: trustedDocuments && { path: trustedDocuments.path, documents: trustedDocuments.documents.size },
  };
}
