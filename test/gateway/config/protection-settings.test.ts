import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/gateway/access/api-keys.js';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { optionsOf } from '../../../src/gateway/options-from-settings.js';
import { problemsOf } from '../../support/config-problems.js';

const KEY = 'k'.repeat(40);
const JWT = { JWT_ISSUER: 'https://auth.example.com/', JWT_AUDIENCE: 'company-search' };

describe('protection settings', () => {
  it('defaults to development: GraphiQL, introspection and anonymous access on, every limit at its default', () => {
    const config = readConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      graphiql: true,
      introspection: true,
      maxBodyBytes: 102_400,
      maxDocumentLength: 10_000,
      maxDepth: 10,
      maxAliases: 15,
      maxDirectives: 20,
      maxTokens: 1_000,
      maxExpandedSelections: 2_000,
      maxUpstreamSearches: 5,
      maxResultFields: 10_000,
      maxResponseBytes: 1_048_576,
      batchingLimit: 0,
      corsAllowedOrigins: [],
      apiKeys: [],
      allowAnonymous: true,
      rateLimitPerMinute: 600,
      rateLimitBurst: 100,
      rateLimitMaxClients: 10_000,
      trustedProxyCount: 0,
      trustedDocuments: undefined,
      allowArbitraryOperations: true,
    });
    expect(optionsOf(config).gateway).toMatchObject({ graphql: { production: false }, access: { jwt: undefined } });
  });

  it('takes MAX_RESPONSE_BYTES from 16 KiB to 64 MiB', () => {
    expect(readConfig({ MAX_RESPONSE_BYTES: '16384' }).maxResponseBytes).toBe(16_384);
    expect(readConfig({ MAX_RESPONSE_BYTES: '67108864' }).maxResponseBytes).toBe(67_108_864);
    expect(problemsOf({ MAX_RESPONSE_BYTES: '16383' })).toEqual([
      'MAX_RESPONSE_BYTES must be a whole number from 16384 to 67108864, got "16383"',
    ]);
    expect(problemsOf({ MAX_RESPONSE_BYTES: '1MiB' })).toEqual([
      'MAX_RESPONSE_BYTES must be a whole number from 16384 to 67108864, got "1MiB"',
    ]);
  });

  it('in production turns GraphiQL and introspection off and wants client access decided', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'NODE_ENV=production needs client access decided: set GATEWAY_API_KEYS, or JWT_ISSUER/JWT_AUDIENCE with JWT_JWKS_URL or JWT_SECRET, or ALLOW_ANONYMOUS=true to serve anyone',
    ]);
    expect(optionsOf(readConfig({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'true' })).gateway).toMatchObject({
      graphql: { production: true, graphiql: false, introspection: false },
      access: { allowAnonymous: true },
    });
    expect(
      optionsOf(readConfig({ NODE_ENV: 'production', GATEWAY_API_KEYS: `app:${KEY}`, GRAPHIQL: 'true', INTROSPECTION: 'true' })).gateway,
    ).toMatchObject({
      graphql: { production: true, graphiql: true, introspection: true },
      access: { allowAnonymous: false, apiKeys: [{ id: 'app', sha256: hashApiKey(KEY) }] },
    });
  });

  it('turns anonymous access off once API keys or JWT are set, unless ALLOW_ANONYMOUS=true', () => {
    expect(readConfig({ GATEWAY_API_KEYS: `app:${KEY}` }).allowAnonymous).toBe(false);
    expect(readConfig({ ...JWT, JWT_SECRET: 's'.repeat(32) }).allowAnonymous).toBe(false);
    expect(readConfig({ GATEWAY_API_KEYS: `app:${KEY}`, ALLOW_ANONYMOUS: 'true' }).allowAnonymous).toBe(true);
    expect(problemsOf({ ALLOW_ANONYMOUS: 'false' })).toEqual([
      'ALLOW_ANONYMOUS=false needs GATEWAY_API_KEYS or JWT_ISSUER/JWT_AUDIENCE with JWT_JWKS_URL or JWT_SECRET, or nobody could call the gateway',
    ]);
  });

  it('reads JWT settings with a JWKS URL or a shared secret, never echoing the secret', () => {
    expect(optionsOf(readConfig({ ...JWT, JWT_JWKS_URL: 'https://auth.example.com/.well-known/jwks.json' })).gateway.access.jwt).toEqual({
      issuer: 'https://auth.example.com/',
      audience: 'company-search',
      key: { jwksUrl: new URL('https://auth.example.com/.well-known/jwks.json') },
    });
    expect(optionsOf(readConfig({ ...JWT, JWT_JWKS_URL: 'http://localhost:8080/jwks' })).gateway.access.jwt?.key).toEqual({
      jwksUrl: new URL('http://localhost:8080/jwks'),
    });
    expect(problemsOf({ JWT_SECRET: 'short-secret' })).toEqual([
      'JWT_ISSUER is required to accept bearer tokens',
      'JWT_AUDIENCE is required to accept bearer tokens',
      'JWT_SECRET must be at least 32 characters long',
    ]);
    expect(problemsOf({ ...JWT, JWT_SECRET: 's'.repeat(32), JWT_JWKS_URL: 'https://auth.example.com/jwks' })).toEqual([
      'Set exactly one of JWT_JWKS_URL and JWT_SECRET to accept bearer tokens',
    ]);
    expect(problemsOf({ ...JWT })).toEqual(['Set exactly one of JWT_JWKS_URL and JWT_SECRET to accept bearer tokens']);
    expect(problemsOf({ ...JWT, JWT_JWKS_URL: 'http://auth.example.com/jwks' })).toEqual([
      'JWT_JWKS_URL must be an https:// URL (http:// only to localhost)',
    ]);
  });

  it('names every bad value', () => {
    const problems = problemsOf({
      NODE_ENV: 'prod',
      GRAPHIQL: 'yes',
      MAX_BODY_BYTES: '10',
      MAX_EXPANDED_SELECTIONS: '0',
      MAX_UPSTREAM_SEARCHES: '0',
      BATCHING_LIMIT: '101',
      CORS_ALLOWED_ORIGINS: 'https://app.example.com, app.example.com, https://x.example/path',
      GATEWAY_API_KEYS: `app:${KEY},bad`,
      RATE_LIMIT_PER_MINUTE: '-5',
      TRUSTED_PROXY_COUNT: 'all',
    });
    expect(problems).toEqual([
      'NODE_ENV must be one of development, production, test, got "prod"',
      'GATEWAY_API_KEYS entry 2 must be id:key: a name for the client (used in logs and rate limits), a colon, then the key, such as web:<the output of openssl rand -hex 32>',
      'GRAPHIQL must be true or false, got "yes"',
      'MAX_BODY_BYTES must be a whole number from 1024 to 104857600, got "10"',
      'MAX_EXPANDED_SELECTIONS must be a whole number from 1 to 1000000, got "0"',
      'MAX_UPSTREAM_SEARCHES must be a whole number from 1 to 1000, got "0"',
      'BATCHING_LIMIT must be a whole number from 0 to 100, got "101"',
      'CORS_ALLOWED_ORIGINS must be * or origins such as https://app.example.com (scheme, host and port, no path), separated by commas; not "app.example.com", "https://x.example/path"',
      'RATE_LIMIT_PER_MINUTE must be a whole number from 0 to 6000000, got "-5"',
      'TRUSTED_PROXY_COUNT must be a whole number from 0 to 10, got "all"',
    ]);
    expect(problems.join('\n')).not.toContain(KEY);
  });

  it('reads CORS origins and * as given', () => {
    expect(readConfig({ CORS_ALLOWED_ORIGINS: 'https://app.example.com,http://localhost:5173' }).corsAllowedOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(readConfig({ CORS_ALLOWED_ORIGINS: '*' }).corsAllowedOrigins).toEqual(['*']);
  });
});
