import {
  DEFAULT_REQUEST_DEADLINE_MS,
  DEFAULT_TOKEN_REFUSED_COOLDOWN_MS,
  DEFAULT_UPSTREAM_BODY_TIMEOUT_MS,
  DEFAULT_UPSTREAM_BREAKER_COOLDOWN_MS,
  DEFAULT_UPSTREAM_BREAKER_FAILURES,
  DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS,
  DEFAULT_UPSTREAM_CONNECTIONS,
  DEFAULT_UPSTREAM_HEADERS_TIMEOUT_MS,
  DEFAULT_UPSTREAM_MAX_IN_FLIGHT,
  DEFAULT_UPSTREAM_MAX_RETRY_AFTER_MS,
  DEFAULT_UPSTREAM_RETRIES,
  DEFAULT_UPSTREAM_RETRY_BASE_MS,
  DEFAULT_UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS,
  DEFAULT_UPSTREAM_TOKEN_MAX_LIFETIME_MS,
  DEFAULT_UPSTREAM_TOKEN_MIN_LIFETIME_MS,
} from './defaults.js';
import type { EnvReader } from './env-reader.js';

export interface UpstreamTarget {
  url: URL;
  clientId: string;
  clientSecret: string;
}

/** How the gateway reaches the lookup service and how it bears with its failures. */
export interface UpstreamSettings {
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
  /** The fleet's calls to the upstream per minute, token calls included; undefined: no budget. */
  upstreamMaxCallsPerMinute: number | undefined;
  /** How long a token without a usable `expires_in` is used. */
  upstreamTokenDefaultLifetimeMs: number;
  /** Bounds of a token's lifetime, whatever `expires_in` says. */
  upstreamTokenMinLifetimeMs: number;
  upstreamTokenMaxLifetimeMs: number;
}

const PARAMETER_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;
/** The parameters every search already sends; a page parameter must not overwrite one. */
const SEARCH_PARAMETERS = ['q', 'jurisdiction', 'pageSize'];

export function readUpstreamSettings(reader: EnvReader): UpstreamSettings {
  return {
    upstream: readUpstreamTarget(reader),
    upstreamPageParam: readPageParam(reader),
    upstreamConnections: reader.integer('UPSTREAM_CONNECTIONS', DEFAULT_UPSTREAM_CONNECTIONS, 1, 1_024),
    upstreamConnectTimeoutMs: reader.integer('UPSTREAM_CONNECT_TIMEOUT_MS', DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS, 1, 600_000),
    upstreamHeadersTimeoutMs: reader.integer('UPSTREAM_HEADERS_TIMEOUT_MS', DEFAULT_UPSTREAM_HEADERS_TIMEOUT_MS, 1, 600_000),
    upstreamBodyTimeoutMs: reader.integer('UPSTREAM_BODY_TIMEOUT_MS', DEFAULT_UPSTREAM_BODY_TIMEOUT_MS, 1, 600_000),
    requestDeadlineMs: reader.integer('REQUEST_DEADLINE_MS', DEFAULT_REQUEST_DEADLINE_MS, 1, 600_000),
    upstreamMaxInFlight: reader.integer('UPSTREAM_MAX_IN_FLIGHT', DEFAULT_UPSTREAM_MAX_IN_FLIGHT, 1, 1_024),
    upstreamRetries: reader.integer('UPSTREAM_RETRIES', DEFAULT_UPSTREAM_RETRIES, 0, 10),
    upstreamRetryBaseMs: reader.integer('UPSTREAM_RETRY_BASE_MS', DEFAULT_UPSTREAM_RETRY_BASE_MS, 1, 60_000),
    upstreamBreakerFailures: reader.integer('UPSTREAM_BREAKER_FAILURES', DEFAULT_UPSTREAM_BREAKER_FAILURES, 1, 1_000),
    upstreamBreakerCooldownMs: reader.integer('UPSTREAM_BREAKER_COOLDOWN_MS', DEFAULT_UPSTREAM_BREAKER_COOLDOWN_MS, 1, 3_600_000),
    upstreamMaxRetryAfterMs: reader.integer('UPSTREAM_MAX_RETRY_AFTER_MS', DEFAULT_UPSTREAM_MAX_RETRY_AFTER_MS, 0, 3_600_000),
    tokenRefusedCooldownMs: reader.integer('TOKEN_REFUSED_COOLDOWN_MS', DEFAULT_TOKEN_REFUSED_COOLDOWN_MS, 0, 3_600_000),
    upstreamMaxCallsPerMinute: reader.given('UPSTREAM_MAX_CALLS_PER_MINUTE')
      ? reader.integer('UPSTREAM_MAX_CALLS_PER_MINUTE', 0, 1, 10_000_000)
      : undefined,
    ...readTokenLifetime(reader),
  };
}

function readUpstreamTarget(reader: EnvReader): UpstreamTarget | undefined {
  const url = reader.url('UPSTREAM_URL');
  const clientId = reader.string('UPSTREAM_CLIENT_ID');
  const clientSecret = reader.string('UPSTREAM_CLIENT_SECRET');
  if (url === undefined) {
    const urlGiven = reader.string('UPSTREAM_URL') !== undefined;
    if (!urlGiven && (clientId !== undefined || clientSecret !== undefined)) {
      reader.problem('UPSTREAM_CLIENT_ID and UPSTREAM_CLIENT_SECRET are set but UPSTREAM_URL is not; set UPSTREAM_URL too');
    }
    return undefined;
  }
  if (clientId === undefined) reader.problem('UPSTREAM_CLIENT_ID is required when UPSTREAM_URL is set');
  if (clientSecret === undefined) reader.problem('UPSTREAM_CLIENT_SECRET is required when UPSTREAM_URL is set');
  return clientId === undefined || clientSecret === undefined ? undefined : { url, clientId, clientSecret };
}

function readPageParam(reader: EnvReader): string | undefined {
  const raw = reader.string('UPSTREAM_PAGE_PARAM');
  if (raw === undefined) return undefined;
  if (!PARAMETER_NAME.test(raw)) {
    reader.refuse('UPSTREAM_PAGE_PARAM', `UPSTREAM_PAGE_PARAM must be a query parameter name such as page, got ${JSON.stringify(raw)}`);
  } else if (SEARCH_PARAMETERS.includes(raw)) {
    reader.refuse('UPSTREAM_PAGE_PARAM', `UPSTREAM_PAGE_PARAM must not be ${raw}, which the search already sends`);
  } else {
    return raw;
  }
  return undefined;
}

/** The bounds of a service token's lifetime, checked against each other. */
function readTokenLifetime(reader: EnvReader) {
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
  if (reader.refused('UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS', 'UPSTREAM_TOKEN_MIN_LIFETIME_MS', 'UPSTREAM_TOKEN_MAX_LIFETIME_MS'))
    return lifetime;
  if (min > max) {
    reader.problem(`UPSTREAM_TOKEN_MIN_LIFETIME_MS (${min}) must not be greater than UPSTREAM_TOKEN_MAX_LIFETIME_MS (${max})`);
  } else if (fallback < min || fallback > max) {
    reader.problem(
      `UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS (${fallback}) must lie from UPSTREAM_TOKEN_MIN_LIFETIME_MS (${min}) to UPSTREAM_TOKEN_MAX_LIFETIME_MS (${max})`,
    );
  }
  return lifetime;
}
