import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, readConfig, readSettings } from '../../../src/gateway/config/gateway-config.js';
import { SETTING_GROUPS } from '../../../src/gateway/config/settings.js';
import { optionsOf } from '../../../src/gateway/options-from-settings.js';
import { configurationReference } from '../../../scripts/configuration-reference.js';
import { problemsOf } from '../../support/config-problems.js';

describe('readConfig', () => {
  it('reads the resilience settings, with their documented defaults', () => {
    expect(readConfig({})).toMatchObject({
      requestDeadlineMs: 10_000,
      upstreamMaxInFlight: 8,
      upstreamRetries: 2,
      upstreamRetryBaseMs: 200,
      upstreamBreakerFailures: 5,
      upstreamBreakerCooldownMs: 10_000,
      upstreamMaxRetryAfterMs: 60_000,
      tokenRefusedCooldownMs: 30_000,
      cacheStaleIfErrorMs: 3_600_000,
    });
    expect(
      readConfig({
        REQUEST_DEADLINE_MS: '2500',
        UPSTREAM_MAX_IN_FLIGHT: '3',
        UPSTREAM_RETRIES: '0',
        UPSTREAM_RETRY_BASE_MS: '50',
        UPSTREAM_BREAKER_FAILURES: '10',
        UPSTREAM_BREAKER_COOLDOWN_MS: '1000',
        UPSTREAM_MAX_RETRY_AFTER_MS: '5000',
        TOKEN_REFUSED_COOLDOWN_MS: '0',
        CACHE_STALE_IF_ERROR_MS: '0',
      }),
    ).toMatchObject({
      requestDeadlineMs: 2_500,
      upstreamMaxInFlight: 3,
      upstreamRetries: 0,
      upstreamRetryBaseMs: 50,
      upstreamBreakerFailures: 10,
      upstreamBreakerCooldownMs: 1_000,
      upstreamMaxRetryAfterMs: 5_000,
      tokenRefusedCooldownMs: 0,
      cacheStaleIfErrorMs: 0,
    });
    expect(
      problemsOf({
        UPSTREAM_RETRIES: '11',
        UPSTREAM_BREAKER_FAILURES: '0',
        REQUEST_DEADLINE_MS: 'soon',
        UPSTREAM_MAX_RETRY_AFTER_MS: '86400000',
      }),
    ).toEqual([
      'REQUEST_DEADLINE_MS must be a whole number from 1 to 600000, got "soon"',
      'UPSTREAM_RETRIES must be a whole number from 0 to 10, got "11"',
      'UPSTREAM_BREAKER_FAILURES must be a whole number from 1 to 1000, got "0"',
      'UPSTREAM_MAX_RETRY_AFTER_MS must be a whole number from 0 to 3600000, got "86400000"',
    ]);
  });

  it("reads the bounds of a service token's lifetime, and refuses a default outside them", () => {
    expect(readConfig({})).toMatchObject({
      upstreamTokenDefaultLifetimeMs: 300_000,
      upstreamTokenMinLifetimeMs: 10_000,
      upstreamTokenMaxLifetimeMs: 3_600_000,
    });
    expect(
      readConfig({
        UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS: '60000',
        UPSTREAM_TOKEN_MIN_LIFETIME_MS: '1000',
        UPSTREAM_TOKEN_MAX_LIFETIME_MS: '60000',
      }),
    ).toMatchObject({ upstreamTokenDefaultLifetimeMs: 60_000, upstreamTokenMinLifetimeMs: 1_000, upstreamTokenMaxLifetimeMs: 60_000 });
    expect(problemsOf({ UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS: '5000' })).toEqual([
      'UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS (5000) must lie from UPSTREAM_TOKEN_MIN_LIFETIME_MS (10000) to UPSTREAM_TOKEN_MAX_LIFETIME_MS (3600000)',
    ]);
    expect(problemsOf({ UPSTREAM_TOKEN_MIN_LIFETIME_MS: '120000', UPSTREAM_TOKEN_MAX_LIFETIME_MS: '60000' })).toEqual([
      'UPSTREAM_TOKEN_MIN_LIFETIME_MS (120000) must not be greater than UPSTREAM_TOKEN_MAX_LIFETIME_MS (60000)',
    ]);
    expect(problemsOf({ UPSTREAM_TOKEN_MAX_LIFETIME_MS: '0' })).toEqual([
      'UPSTREAM_TOKEN_MAX_LIFETIME_MS must be a whole number from 1000 to 86400000, got "0"',
    ]);
  });

  it('reads the client connection settings with their defaults, and refuses a headers timeout longer than the request timeout', () => {
    expect(readConfig({})).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 1_024,
      maxConnectionsPerAddress: 64,
      refusalLingerMs: 3_000,
      refusalLingerBytes: 8 * 1024 * 1024,
      idleSocketTimeoutMs: 15_000,
      responseWriteTimeoutMs: 30_000,
    });
    expect(
      readConfig({
        HEADERS_TIMEOUT_MS: '2000',
        REQUEST_TIMEOUT_MS: '2000',
        MAX_CONNECTIONS: '10',
        MAX_CONNECTIONS_PER_ADDRESS: '0',
        REFUSAL_LINGER_MS: '0',
        REFUSAL_LINGER_BYTES: '0',
        IDLE_SOCKET_TIMEOUT_MS: '1000',
        RESPONSE_WRITE_TIMEOUT_MS: '2000',
      }),
    ).toMatchObject({
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 2_000,
      maxConnections: 10,
      maxConnectionsPerAddress: 0,
      refusalLingerMs: 0,
      refusalLingerBytes: 0,
      idleSocketTimeoutMs: 1_000,
      responseWriteTimeoutMs: 2_000,
    });
    expect(problemsOf({ HEADERS_TIMEOUT_MS: '40000' })).toEqual([
      'HEADERS_TIMEOUT_MS (40000) must not be more than REQUEST_TIMEOUT_MS (30000), which covers the headers too',
    ]);
    expect(problemsOf({ HEADERS_TIMEOUT_MS: '0', MAX_CONNECTIONS: '0', REFUSAL_LINGER_MS: '61000', IDLE_SOCKET_TIMEOUT_MS: '0' })).toEqual([
      'HEADERS_TIMEOUT_MS must be a whole number from 100 to 600000, got "0"',
      'MAX_CONNECTIONS must be a whole number from 1 to 1000000, got "0"',
      'REFUSAL_LINGER_MS must be a whole number from 0 to 60000, got "61000"',
      'IDLE_SOCKET_TIMEOUT_MS must be a whole number from 100 to 3600000, got "0"',
    ]);
  });

  it('uses the documented defaults and the embedded upstream when nothing is set', () => {
    const config = readConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 4000,
      upstreamUrl: undefined,
      upstreamPageParam: undefined,
      cacheTtlMs: 300_000,
      cacheStaleWhileRevalidateMs: 60_000,
      cacheMaxBytes: 64 * 1024 * 1024,
      responseCache: true,
      searchMaxQueryLength: 200,
      logLevel: 'info',
    });
    expect(optionsOf(config).upstreamTarget).toBeUndefined();
  });

  it('reads a real upstream with its credentials and page parameter', () => {
    const config = readConfig({
      UPSTREAM_URL: 'https://lookup.example.com/api',
      UPSTREAM_CLIENT_ID: 'gateway',
      UPSTREAM_CLIENT_SECRET: 's3cret',
      UPSTREAM_PAGE_PARAM: 'page',
      PORT: '8080',
      CACHE_TTL_MS: '1000',
    });
    expect(optionsOf(config).upstreamTarget).toEqual({
      url: new URL('https://lookup.example.com/api'),
      clientId: 'gateway',
      clientSecret: 's3cret',
    });
    expect(config).toMatchObject({ upstreamPageParam: 'page', port: 8080, cacheTtlMs: 1000 });
  });

  it('reads the metrics address and the drain delay: no metrics server unless METRICS_PORT is set, a drain only in production by default', () => {
    expect(readConfig({})).toMatchObject({ metricsPort: undefined, metricsHost: '127.0.0.1', shutdownDrainDelayMs: 0 });
    expect(readConfig({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'true' })).toMatchObject({ shutdownDrainDelayMs: 5_000 });
    expect(readConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0', SHUTDOWN_DRAIN_DELAY_MS: '0' })).toMatchObject({
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      shutdownDrainDelayMs: 0,
    });
    expect(problemsOf({ PORT: '9464', METRICS_PORT: '9464' })).toEqual([
      'METRICS_PORT (9464) must differ from PORT: metrics are never served on the public port',
    ]);
  });

  it('reads the admin server: none unless ADMIN_PORT is set, then only with a long ADMIN_TOKEN and on a port of its own', () => {
    const token = 't'.repeat(32);
    expect(readConfig({})).toMatchObject({ adminPort: undefined, adminHost: '127.0.0.1', adminToken: undefined });
    expect(readConfig({ ADMIN_PORT: '9465', ADMIN_HOST: '10.0.0.5', ADMIN_TOKEN: token })).toMatchObject({
      adminPort: 9465,
      adminHost: '10.0.0.5',
      adminToken: token,
    });
    expect(problemsOf({ ADMIN_PORT: '9465' })).toEqual(['ADMIN_PORT needs ADMIN_TOKEN, the bearer token admin requests must carry']);
    expect(problemsOf({ ADMIN_TOKEN: token })).toEqual(['ADMIN_TOKEN is set but ADMIN_PORT is not; set ADMIN_PORT to serve purges']);
    expect(problemsOf({ ADMIN_PORT: '9465', ADMIN_TOKEN: `${token.slice(1)}` })).toEqual([
      'ADMIN_TOKEN must be at least 32 characters long',
    ]);
    for (const unsendable of [`${token} two`, `${token}é`]) {
      expect(problemsOf({ ADMIN_PORT: '9465', ADMIN_TOKEN: unsendable })).toEqual([
        'ADMIN_TOKEN must be visible ASCII characters with no space, as a bearer token is sent (openssl rand -base64 32 makes one)',
      ]);
    }
    expect(problemsOf({ PORT: '9465', METRICS_PORT: '9464', ADMIN_PORT: '9465', ADMIN_TOKEN: token })).toEqual([
      'ADMIN_PORT (9465) must differ from PORT: purges are never served on the public port',
    ]);
    expect(problemsOf({ METRICS_PORT: '9464', ADMIN_PORT: '9464', ADMIN_TOKEN: token })).toEqual([
      'ADMIN_PORT (9464) must differ from METRICS_PORT',
    ]);
    expect(readConfig({ PORT: '0', ADMIN_PORT: '0', ADMIN_TOKEN: token })).toMatchObject({ adminPort: 0 });
  });

  it('reads a few settings alone for a tool, as the gateway reads them, whatever the others say', () => {
    const env = { ADMIN_PORT: '9465', ADMIN_TOKEN: 't'.repeat(32), PORT: 'not a port', NODE_ENV: 'production' };
    expect(readSettings(['adminHost', 'adminPort', 'adminToken'], env)).toEqual({
      adminHost: '127.0.0.1',
      adminPort: 9465,
      adminToken: 't'.repeat(32),
    });
    expect(() => readSettings(['adminPort'], { ADMIN_PORT: 'ninety' })).toThrow(ConfigError);
    expect(() => readSettings(['adminPort'], { ADMIN_PORT: 'ninety' })).toThrow('ADMIN_PORT must be a whole number from 0 to 65535');
  });

  it('names every bad value in one error', () => {
    expect(
      problemsOf({
        PORT: '70000',
        CACHE_TTL_MS: '5m',
        UPSTREAM_URL: 'ftp://lookup.example.com',
        LOG_LEVEL: 'loud',
        SEARCH_MAX_QUERY_LENGTH: '-1',
      }),
    ).toEqual([
      'PORT must be a whole number from 0 to 65535, got "70000"',
      'UPSTREAM_URL must be an http:// or https:// URL',
      'CACHE_TTL_MS must be a whole number from 1 to 604800000, got "5m"',
      'SEARCH_MAX_QUERY_LENGTH must be a whole number from 1 to 10000, got "-1"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ]);
  });

  it('requires both credentials with UPSTREAM_URL, and UPSTREAM_URL with credentials', () => {
    expect(problemsOf({ UPSTREAM_URL: 'https://lookup.example.com' })).toEqual([
      'UPSTREAM_CLIENT_ID is required when UPSTREAM_URL is set',
      'UPSTREAM_CLIENT_SECRET is required when UPSTREAM_URL is set',
    ]);
    expect(problemsOf({ UPSTREAM_CLIENT_SECRET: 'x' })).toEqual([
      'UPSTREAM_CLIENT_ID and UPSTREAM_CLIENT_SECRET are set but UPSTREAM_URL is not; set UPSTREAM_URL too',
    ]);
  });

  it('refuses credentials or a query inside UPSTREAM_URL, and never echoes them', () => {
    const problems = problemsOf({
      UPSTREAM_URL: 'https://gateway:hunter2@lookup.example.com',
      UPSTREAM_CLIENT_ID: 'a',
      UPSTREAM_CLIENT_SECRET: 'b',
    });
    expect(problems).toEqual(['UPSTREAM_URL must not carry credentials, a query or a fragment; give the base URL only']);
  });

  it('checks HOST and UPSTREAM_PAGE_PARAM', () => {
    expect(problemsOf({ HOST: 'local host', UPSTREAM_PAGE_PARAM: 'page number' })).toEqual([
      'HOST must be an IP address or a host name such as 0.0.0.0 or localhost, got "local host"',
      'UPSTREAM_PAGE_PARAM must be a query parameter name such as page, got "page number"',
    ]);
    expect(problemsOf({ UPSTREAM_PAGE_PARAM: 'q' })).toEqual(['UPSTREAM_PAGE_PARAM must not be q, which the search already sends']);
    expect(readConfig({ HOST: '::1' }).host).toBe('::1');
    expect(readConfig({ HOST: 'gateway.internal' }).host).toBe('gateway.internal');
  });

  it('never echoes an unparsable UPSTREAM_URL, which may carry a secret', () => {
    const problems = problemsOf({ UPSTREAM_URL: 'https://id:s3cr3t@ho st', UPSTREAM_CLIENT_ID: 'a', UPSTREAM_CLIENT_SECRET: 'b' });
    expect(problems).toEqual(['UPSTREAM_URL must be an http:// or https:// URL']);
  });
});

describe('describeConfig', () => {
  it('prints the configuration without the client secret', () => {
    const config = readConfig({
      UPSTREAM_URL: 'https://lookup.example.com',
      UPSTREAM_CLIENT_ID: 'gateway',
      UPSTREAM_CLIENT_SECRET: 'very-secret-value',
    });
    const printed = JSON.stringify(describeConfig(config));
    expect(printed).not.toContain('very-secret-value');
    expect(describeConfig(config)).toMatchObject({
      upstreamUrl: 'https://lookup.example.com/',
      upstreamClientId: 'gateway',
      upstreamClientSecret: '[redacted]',
    });
  });

  it('prints every setting by the name the configuration gives it, and nothing else', () => {
    const config = readConfig({});
    const printed = describeConfig(config);
    expect(Object.keys(printed)).toEqual(Object.keys(config));
    expect(printed).toMatchObject({ host: '127.0.0.1', port: 4000, nodeEnv: 'development', corsAllowedOrigins: [], apiKeys: [] });
  });

  it('prints trusted documents by path and count, and a JWKS URL as given', () => {
    const manifest = fileURLToPath(new URL('../../generated/persisted-documents.json', import.meta.url));
    const count = Object.keys(JSON.parse(readFileSync(manifest, 'utf8'))).length;
    const config = readConfig({
      TRUSTED_DOCUMENTS: manifest,
      JWT_ISSUER: 'https://auth.example.com/',
      JWT_AUDIENCE: 'company-search',
      JWT_JWKS_URL: 'https://auth.example.com/jwks',
    });
    const printed = describeConfig(config);
    expect(printed).toMatchObject({ upstreamUrl: undefined, apiKeys: [] });
    expect(printed.trustedDocuments).toEqual({ manifests: [manifest], documents: count });
    expect(printed).toMatchObject({
      jwtIssuer: 'https://auth.example.com/',
      jwtAudience: 'company-search',
      jwtJwksUrl: 'https://auth.example.com/jwks',
      jwtSecret: undefined,
    });
    expect(count).toBeGreaterThan(0);
  });
});

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` makes of the declarations', () => {
    const committed = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    expect(committed).toBe(configurationReference());
  });
});

describe('--help', () => {
  it('lists every setting with its default and what it accepts, and starts nothing', () => {
    const main = fileURLToPath(new URL('../../../src/main.ts', import.meta.url));
    // A setting the gateway would refuse: --help reads none.
    const output = execFileSync(process.execPath, ['--import', 'tsx', main, '--help'], {
      encoding: 'utf8',
      env: { ...process.env, PORT: 'not a port' },
      timeout: 60_000,
    });
    const names = SETTING_GROUPS.flatMap(({ settings }) => Object.values(settings).map((setting) => setting.env));
    expect(names.filter((name) => !output.includes(`\n  ${name} `))).toEqual([]);
    expect(output).toContain('\n  PORT  (default: 4000; whole number, 0 to 65535)\n      port to listen on (0: any free port)\n');
    expect(output).toContain('\n  JWT_SECRET *  (default: one of this and JWT_JWKS_URL; text)\n');
    expect(output).not.toContain('Gateway ready');
  });
});
