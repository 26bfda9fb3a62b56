import { MIN_JWT_SECRET_LENGTH } from '../access/jwt.js';
import { MIN_ADMIN_TOKEN_LENGTH } from '../admin/admin-server.js';
import type { Settings } from './settings.js';

/**
 * What the settings mean together: the checks no single setting can make.
 * Every check of settings against each other is here; what the parts of the
 * gateway make of several settings is made in ../options-from-settings.ts.
 */

/** What a check may ask besides the values read. */
export interface Judge {
  /** Whether the variable of `key` was set (to a value, or to a file), valid or not. */
  given(key: keyof Settings): boolean;
  /**
   * Whether any of these was set to a value that was refused. A refused value
   * has its own line; judged against others, its default would stand in for
   * it and contradict what the user set.
   */
  refused(...keys: (keyof Settings)[]): boolean;
  problem(message: string): void;
}

export interface Check {
  /** The settings judged together: the check's problems are listed right after the last of theirs. */
  readonly about: readonly (keyof Settings)[];
  judge(settings: Settings, judge: Judge): void;
}

const JWT_SETTINGS = ['jwtIssuer', 'jwtAudience', 'jwtJwksUrl', 'jwtSecret'] as const;

export const CHECKS: readonly Check[] = [
  {
    about: ['headersTimeoutMs', 'requestTimeoutMs'],
    judge({ headersTimeoutMs, requestTimeoutMs }, judge) {
      if (headersTimeoutMs > requestTimeoutMs && !judge.refused('headersTimeoutMs', 'requestTimeoutMs')) {
        judge.problem(
          `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be more than REQUEST_TIMEOUT_MS (${requestTimeoutMs}), which covers the headers too`,
        );
      }
    },
  },
  {
    about: ['redisUrl', 'redisSentinelPassword'],
    judge({ redisUrl }, judge) {
      if (judge.given('redisSentinelPassword') && !judge.refused('redisUrl') && redisUrl?.topology !== 'sentinel') {
        judge.problem(
          'REDIS_SENTINEL_PASSWORD is set but REDIS_URL names no sentinels: unset it, or name them (redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER_NAME)',
        );
      }
    },
  },
  {
    about: ['upstreamUrl', 'upstreamClientId', 'upstreamClientSecret'],
    judge(_, judge) {
      if (!judge.given('upstreamUrl')) {
        if (judge.given('upstreamClientId') || judge.given('upstreamClientSecret')) {
          judge.problem('UPSTREAM_CLIENT_ID and UPSTREAM_CLIENT_SECRET are set but UPSTREAM_URL is not; set UPSTREAM_URL too');
        }
      } else if (!judge.refused('upstreamUrl')) {
        if (!judge.given('upstreamClientId')) judge.problem('UPSTREAM_CLIENT_ID is required when UPSTREAM_URL is set');
        if (!judge.given('upstreamClientSecret')) judge.problem('UPSTREAM_CLIENT_SECRET is required when UPSTREAM_URL is set');
      }
    },
  },
  {
    about: ['upstreamTokenDefaultLifetimeMs', 'upstreamTokenMinLifetimeMs', 'upstreamTokenMaxLifetimeMs'],
    judge(settings, judge) {
      const { upstreamTokenDefaultLifetimeMs: fallback, upstreamTokenMinLifetimeMs: min, upstreamTokenMaxLifetimeMs: max } = settings;
      if (judge.refused('upstreamTokenDefaultLifetimeMs', 'upstreamTokenMinLifetimeMs', 'upstreamTokenMaxLifetimeMs')) return;
      if (min > max) {
        judge.problem(`UPSTREAM_TOKEN_MIN_LIFETIME_MS (${min}) must not be greater than UPSTREAM_TOKEN_MAX_LIFETIME_MS (${max})`);
      } else if (fallback < min || fallback > max) {
        judge.problem(
          `UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS (${fallback}) must lie from UPSTREAM_TOKEN_MIN_LIFETIME_MS (${min}) to UPSTREAM_TOKEN_MAX_LIFETIME_MS (${max})`,
        );
      }
    },
  },
  {
    // Setting any of them is an attempt to accept bearer tokens.
    about: JWT_SETTINGS,
    judge({ jwtSecret }, judge) {
      if (!JWT_SETTINGS.some((key) => judge.given(key))) return;
      if (!judge.given('jwtIssuer')) judge.problem('JWT_ISSUER is required to accept bearer tokens');
      if (!judge.given('jwtAudience')) judge.problem('JWT_AUDIENCE is required to accept bearer tokens');
      if (judge.given('jwtJwksUrl') === judge.given('jwtSecret')) {
        judge.problem('Set exactly one of JWT_JWKS_URL and JWT_SECRET to accept bearer tokens');
      }
      // The secret is never echoed, only measured.
      if (jwtSecret !== undefined && jwtSecret.length < MIN_JWT_SECRET_LENGTH) {
        judge.problem(`JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters long`);
      }
    },
  },
  {
    // In production, anonymous access is never the default: it must be chosen, or credentials configured. Credentials that
    // were set but refused have their own problem lines; the gateway does not also say that none were set.
    about: ['nodeEnv', 'apiKeys', ...JWT_SETTINGS, 'allowAnonymous'],
    judge({ allowAnonymous }, judge) {
      const credentialsGiven = judge.given('apiKeys') || JWT_SETTINGS.some((key) => judge.given(key));
      if (allowAnonymous || credentialsGiven || judge.refused('allowAnonymous')) return;
      judge.problem(
        judge.given('allowAnonymous')
          ? 'ALLOW_ANONYMOUS=false needs GATEWAY_API_KEYS or JWT_ISSUER/JWT_AUDIENCE with JWT_JWKS_URL or JWT_SECRET, or nobody could call the gateway'
          : 'NODE_ENV=production needs client access decided: set GATEWAY_API_KEYS, or JWT_ISSUER/JWT_AUDIENCE with JWT_JWKS_URL or JWT_SECRET, or ALLOW_ANONYMOUS=true to serve anyone',
      );
    },
  },
  {
    about: ['trustedDocuments', 'allowArbitraryOperations'],
    judge({ allowArbitraryOperations }, judge) {
      if (!allowArbitraryOperations && !judge.given('trustedDocuments')) {
        judge.problem('ALLOW_ARBITRARY_OPERATIONS=false needs TRUSTED_DOCUMENTS, the manifest of the operations to allow');
      }
    },
  },
  {
    // The admin server is for operators: on a port of its own, never the public one, and only with its token.
    about: ['port', 'metricsPort', 'adminPort', 'adminToken'],
    judge({ port, metricsPort, adminPort, adminToken }, judge) {
      if (judge.refused('adminPort', 'adminToken')) return;
      if (adminPort === undefined) {
        if (adminToken !== undefined) judge.problem('ADMIN_TOKEN is set but ADMIN_PORT is not; set ADMIN_PORT to serve purges');
        return;
      }
      if (adminToken === undefined) judge.problem('ADMIN_PORT needs ADMIN_TOKEN, the bearer token admin requests must carry');
      // The token is never echoed, only measured.
      else if (adminToken.length < MIN_ADMIN_TOKEN_LENGTH)
        judge.problem(`ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long`);
      // A bearer token travels as one run of visible ASCII (RFC 6750's token68 and more): any other would be refused on every purge.
      else if (!/^[\x21-\x7e]+$/.test(adminToken))
        judge.problem(
          'ADMIN_TOKEN must be visible ASCII characters with no space, as a bearer token is sent (openssl rand -base64 32 makes one)',
        );
      if (adminPort === 0 || judge.refused('port', 'metricsPort')) return;
      if (adminPort === port) judge.problem(`ADMIN_PORT (${adminPort}) must differ from PORT: purges are never served on the public port`);
      if (adminPort === metricsPort) judge.problem(`ADMIN_PORT (${adminPort}) must differ from METRICS_PORT`);
    },
  },
  {
    // Metrics are served on a port of their own, never the public one.
    about: ['port', 'metricsPort'],
    judge({ port, metricsPort }, judge) {
      if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port && !judge.refused('metricsPort', 'port')) {
        judge.problem(`METRICS_PORT (${metricsPort}) must differ from PORT: metrics are never served on the public port`);
      }
    },
  },
];
