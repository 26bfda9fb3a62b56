import { isIP } from 'node:net';

/**
 * The gateway's settings, read from environment variables and checked before
 * anything starts. Each default is a named constant below; README.md's
 * settings table mirrors them.
 */
export interface GatewayConfig {
  host: string;
  port: number;
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
  tokenRefusedCooldownMs: number;
  cacheTtlMs: number;
  cacheStaleWhileRevalidateMs: number;
  cacheStaleIfErrorMs: number;
  cacheMaxBytes: number;
  searchMaxQueryLength: number;
  logLevel: LogLevel;
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
export const DEFAULT_TOKEN_REFUSED_COOLDOWN_MS = 30_000;
export const DEFAULT_SEARCH_MAX_QUERY_LENGTH = 200;
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

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

export function readConfig(env: Env = process.env): GatewayConfig {
  const problems: string[] = [];
  const reader = new EnvReader(env, problems);
  const config: GatewayConfig = {
    host: reader.host('HOST') ?? DEFAULT_HOST,
    port: reader.integer('PORT', DEFAULT_PORT, 0, 65_535),
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
    tokenRefusedCooldownMs: reader.integer('TOKEN_REFUSED_COOLDOWN_MS', DEFAULT_TOKEN_REFUSED_COOLDOWN_MS, 0, 3_600_000),
    cacheTtlMs: reader.integer('CACHE_TTL_MS', DEFAULT_CACHE_TTL_MS, 1, 7 * 24 * 3_600_000),
    cacheStaleWhileRevalidateMs: reader.integer(
      'CACHE_STALE_WHILE_REVALIDATE_MS',
      DEFAULT_CACHE_STALE_WHILE_REVALIDATE_MS,
      0,
      7 * 24 * 3_600_000,
    ),
    cacheStaleIfErrorMs: reader.integer('CACHE_STALE_IF_ERROR_MS', DEFAULT_CACHE_STALE_IF_ERROR_MS, 0, 7 * 24 * 3_600_000),
    cacheMaxBytes: reader.integer('CACHE_MAX_BYTES', DEFAULT_CACHE_MAX_BYTES, 1_024, Number.MAX_SAFE_INTEGER),
    searchMaxQueryLength: reader.integer('SEARCH_MAX_QUERY_LENGTH', DEFAULT_SEARCH_MAX_QUERY_LENGTH, 1, 10_000),
    logLevel: reader.oneOf('LOG_LEVEL', LOG_LEVELS, DEFAULT_LOG_LEVEL),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
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

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
    return fallback;
  }
}

/** The configuration as it may be printed or logged: the client secret is never included. */
export function describeConfig(config: GatewayConfig): Record<string, unknown> {
  const { upstream, ...rest } = config;
  return {
    ...rest,
    upstream: upstream ? { url: upstream.url.href, clientId: upstream.clientId, clientSecret: '[redacted]' } : 'embedded',
  };
}
