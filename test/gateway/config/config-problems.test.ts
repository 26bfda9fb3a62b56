import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { SETTING_GROUPS } from '../../../src/gateway/config/settings.js';
import { problemsOf } from '../../support/config-problems.js';

const KEY = 'k'.repeat(64);
const JWT = { JWT_ISSUER: 'https://auth.example.com/', JWT_AUDIENCE: 'company-search' };
const UPSTREAM = { UPSTREAM_URL: 'https://lookup.example.com', UPSTREAM_CLIENT_ID: 'gateway', UPSTREAM_CLIENT_SECRET: 'secret' };

/** An invalid value of each setting, with the settings it needs beside it to be read at all. */
interface BadValue {
  value: string;
  with?: Record<string, string>;
}

/** Settings whose value is free text: nothing they are set to is refused. */
const FREE_TEXT = new Set(['UPSTREAM_CLIENT_ID', 'UPSTREAM_CLIENT_SECRET', 'JWT_ISSUER', 'JWT_AUDIENCE', 'OTEL_SERVICE_NAME']);

const NUMBER: BadValue = { value: 'soon' };

const BAD_VALUES: Record<string, BadValue> = {
  HOST: { value: 'local host' },
  PORT: NUMBER,
  HEADERS_TIMEOUT_MS: NUMBER,
  REQUEST_TIMEOUT_MS: NUMBER,
  MAX_CONNECTIONS: NUMBER,
  MAX_CONNECTIONS_PER_ADDRESS: NUMBER,
  IDLE_SOCKET_TIMEOUT_MS: NUMBER,
  RESPONSE_WRITE_TIMEOUT_MS: NUMBER,
  MAX_RESULT_FIELDS: NUMBER,
  MAX_RESPONSE_BYTES: NUMBER,
  REFUSAL_LINGER_MS: NUMBER,
  REFUSAL_LINGER_BYTES: NUMBER,
  UPSTREAM_URL: { value: 'ftp://lookup.example.com', with: UPSTREAM },
  UPSTREAM_PAGE_PARAM: { value: 'page number' },
  UPSTREAM_CONNECTIONS: NUMBER,
  UPSTREAM_CONNECT_TIMEOUT_MS: NUMBER,
  UPSTREAM_HEADERS_TIMEOUT_MS: NUMBER,
  UPSTREAM_BODY_TIMEOUT_MS: NUMBER,
  REQUEST_DEADLINE_MS: NUMBER,
  UPSTREAM_MAX_IN_FLIGHT: NUMBER,
  UPSTREAM_RETRIES: NUMBER,
  UPSTREAM_RETRY_BASE_MS: NUMBER,
  UPSTREAM_BREAKER_FAILURES: NUMBER,
  UPSTREAM_BREAKER_COOLDOWN_MS: NUMBER,
  UPSTREAM_MAX_RETRY_AFTER_MS: NUMBER,
  TOKEN_REFUSED_COOLDOWN_MS: NUMBER,
  UPSTREAM_MAX_CALLS_PER_MINUTE: NUMBER,
  REDIS_URL: { value: 'http://redis.internal:6379' },
  REDIS_SENTINEL_PASSWORD: { value: 'sentinel-pass', with: { REDIS_URL: 'redis://redis.internal:6379' } },
  REDIS_KEY_PREFIX: { value: 'my prefix' },
  REDIS_COMMAND_TIMEOUT_MS: NUMBER,
  UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS: NUMBER,
  UPSTREAM_TOKEN_MIN_LIFETIME_MS: NUMBER,
  UPSTREAM_TOKEN_MAX_LIFETIME_MS: NUMBER,
  CACHE_TTL_MS: NUMBER,
  CACHE_STALE_WHILE_REVALIDATE_MS: NUMBER,
  CACHE_STALE_IF_ERROR_MS: NUMBER,
  CACHE_MAX_BYTES: NUMBER,
  RESPONSE_CACHE: { value: 'yes' },
  CDN_TAG_HEADER: { value: 'cache-tag' },
  NODE_ENV: { value: 'prod' },
  GATEWAY_API_KEYS: { value: KEY },
  JWT_JWKS_URL: { value: 'ftp://auth.example.com/jwks', with: JWT },
  JWT_SECRET: { value: 'short', with: JWT },
  ALLOW_ANONYMOUS: { value: 'yes' },
  TRUSTED_DOCUMENTS: { value: '/nonexistent/persisted-documents.json' },
  ALLOW_ARBITRARY_OPERATIONS: { value: 'no' },
  GRAPHIQL: { value: 'yes' },
  INTROSPECTION: { value: 'yes' },
  MAX_BODY_BYTES: NUMBER,
  MAX_DOCUMENT_LENGTH: NUMBER,
  MAX_DEPTH: NUMBER,
  MAX_ALIASES: NUMBER,
  MAX_DIRECTIVES: NUMBER,
  MAX_TOKENS: NUMBER,
  MAX_EXPANDED_SELECTIONS: NUMBER,
  MAX_UPSTREAM_SEARCHES: NUMBER,
  BATCHING_LIMIT: NUMBER,
  SEARCH_MAX_QUERY_LENGTH: NUMBER,
  CORS_ALLOWED_ORIGINS: { value: 'app.example.com' },
  RATE_LIMIT_PER_MINUTE: NUMBER,
  RATE_LIMIT_BURST: NUMBER,
  RATE_LIMIT_MAX_CLIENTS: NUMBER,
  TRUSTED_PROXY_COUNT: NUMBER,
  LOG_LEVEL: { value: 'loud' },
  LOG_FORMAT: { value: 'xml' },
  OTEL_SDK_DISABLED: { value: 'yes' },
  OTEL_TRACES_EXPORTER: { value: 'jaeger' },
  OTEL_EXPORTER_OTLP_ENDPOINT: { value: 'localhost:4318' },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { value: 'collector/v1/traces' },
  OTEL_EXPORTER_OTLP_PROTOCOL: { value: 'http' },
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: { value: 'http' },
  OTEL_TRACES_SAMPLER: { value: 'sometimes' },
  OTEL_TRACES_SAMPLER_ARG: { value: '2', with: { OTEL_TRACES_SAMPLER: 'traceidratio' } },
  OTEL_RECORD_SEARCH_TERMS: { value: 'yes' },
  METRICS_PORT: NUMBER,
  METRICS_HOST: { value: 'metrics host' },
  SHUTDOWN_DRAIN_DELAY_MS: NUMBER,
  ADMIN_PORT: NUMBER,
  ADMIN_HOST: { value: 'admin host' },
  ADMIN_TOKEN: { value: 'short', with: { ADMIN_PORT: '9465' } },
};

/** Whether the setting is one way of deciding who may call the gateway, which production requires. */
function decidesAccess(name: string): boolean {
  return name === 'ALLOW_ANONYMOUS' || name === 'GATEWAY_API_KEYS' || name.startsWith('JWT_');
}

/** Every variable declared, and so read. */
function settingsRead(): string[] {
  return SETTING_GROUPS.flatMap(({ settings }) => Object.values(settings).map((setting) => setting.env));
}

describe('configuration problems: one line per real problem, none contradicting the settings given', () => {
  it('does not call client access undecided when GATEWAY_API_KEYS was set but refused', () => {
    expect(problemsOf({ NODE_ENV: 'production', GATEWAY_API_KEYS: KEY })).toEqual([
      'GATEWAY_API_KEYS entry 1 must be id:key: a name for the client (used in logs and rate limits), a colon, then the key, such as web:<the output of openssl rand -hex 32>',
    ]);
    expect(problemsOf({ NODE_ENV: 'production', ...JWT, JWT_JWKS_URL: 'http://auth.example.com/jwks' })).toEqual([
      'JWT_JWKS_URL must be an https:// URL (http:// only to localhost)',
    ]);
  });

  it('does not take a refused ALLOW_ANONYMOUS for false', () => {
    const refused = ['ALLOW_ANONYMOUS must be true or false, got "yes"'];
    expect(problemsOf({ ALLOW_ANONYMOUS: 'yes' })).toEqual(refused);
    expect(problemsOf({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'yes' })).toEqual(refused);
  });

  it('does not check settings against one another when one of them was refused', () => {
    expect(problemsOf({ HEADERS_TIMEOUT_MS: '40000', REQUEST_TIMEOUT_MS: '40 s' })).toEqual([
      'REQUEST_TIMEOUT_MS must be a whole number from 100 to 3600000, got "40 s"',
    ]);
    expect(problemsOf({ UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS: '5000', UPSTREAM_TOKEN_MIN_LIFETIME_MS: '1 s' })).toEqual([
      'UPSTREAM_TOKEN_MIN_LIFETIME_MS must be a whole number from 1000 to 86400000, got "1 s"',
    ]);
    expect(problemsOf({ ALLOW_ARBITRARY_OPERATIONS: 'false', TRUSTED_DOCUMENTS: '/nonexistent.json' })).toHaveLength(1);
  });

  it('still reports what is really missing', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toHaveLength(1);
    expect(problemsOf({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'false' })[0]).toMatch(/^ALLOW_ANONYMOUS=false needs/);
    expect(problemsOf({ JWT_ISSUER: 'https://auth.example.com/' })).toEqual([
      'JWT_AUDIENCE is required to accept bearer tokens',
      'Set exactly one of JWT_JWKS_URL and JWT_SECRET to accept bearer tokens',
    ]);
  });

  const settings = settingsRead();

  it('has an invalid value for every setting read, or knows it takes free text', () => {
    expect(settings.length).toBeGreaterThan(50);
    expect(new Set(settings).size).toBe(settings.length);
    expect(settings.filter((name) => !(name in BAD_VALUES) && !FREE_TEXT.has(name))).toEqual([]);
    expect([...Object.keys(BAD_VALUES), ...FREE_TEXT].filter((name) => !settings.includes(name))).toEqual([]);
  });

  it.each(settings.filter((name) => name in BAD_VALUES))('answers an invalid %s with exactly one line naming it', (name) => {
    const { value, with: companions = {} } = BAD_VALUES[name]!;
    const inDevelopment = problemsOf({ ...companions, [name]: value });
    expect(inDevelopment).toHaveLength(1);
    expect(inDevelopment[0]).toContain(name);
    // Production wants client access decided; here it is, unless the setting swept is one way of deciding it.
    const production: Record<string, string> = { NODE_ENV: 'production', ...(decidesAccess(name) ? {} : { ALLOW_ANONYMOUS: 'true' }) };
    const inProduction = problemsOf({ ...production, ...companions, [name]: value });
    expect(inProduction).toEqual(inDevelopment);
  });

  it.each([...FREE_TEXT])('takes any text in %s', (name) => {
    const companions = name.startsWith('JWT_') ? { ...JWT, JWT_SECRET: 's'.repeat(32) } : UPSTREAM;
    expect(() => readConfig({ ...companions, [name]: 'any text: at all' })).not.toThrow();
  });
});
