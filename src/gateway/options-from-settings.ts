import { jwtSettingsOf } from './access/jwt.js';
import type { SettingsOf } from './config/kinds.js';
import type {
  AdminSettings,
  accessSettings,
  cacheSettings,
  corsSettings,
  GraphqlSettings,
  logSettings,
  modeSettings,
  observabilitySettings,
  RequestLimitSettings,
  rateLimitSettings,
  Settings,
  serverSettings,
  SharedStateSettings,
  tracingSettings,
  UpstreamSettings,
} from './config/settings.js';
import type { LogFormat, LogLevel } from './logger.js';
import type { TracingSettings } from './observability/tracing-hooks.js';
import type { ReloadableSettings } from './reload/live-settings.js';
import type { GatewayParts } from './server.js';
import type { UpstreamTarget } from './upstream-client-for.js';

/**
 * Where each setting goes: the one place the settings (config/settings.ts)
 * become the options of the parts of the gateway that use them (GatewayParts,
 * what startGateway in server.ts takes by name). One function
 * per group of settings takes every setting of its group out by name, and
 * what is left must be nothing: a setting declared and read by no part is a
 * type error in its group's function (`Type '{ upstreamUserAgent: string; }'
 * does not satisfy the expected type 'NothingLeft'`), and
 * test/gateway/config/settings-read.test.ts fails on it. No option a setting
 * gives is optional, so a line left out is a type error too.
 */

/** The gateway's parts, and what `npm start` (main.ts) sets up before the gateway, all from the settings. */
export interface ConfiguredOptions {
  gateway: GatewayParts;
  log: { level: LogLevel; format: 'auto' | LogFormat };
  /** Unset: tracing is off, and its SDK is never loaded. */
  tracingSettings: TracingSettings | undefined;
  /** Unset: the embedded lookup service is started and fronted. */
  upstreamTarget: UpstreamTarget | undefined;
}

/** Every part's options, made from the settings. */
export function optionsOf(settings: Settings): ConfiguredOptions {
  const { upstreamTarget, upstream } = upstreamOf(settings);
  return {
    gateway: {
      ...serverOf(settings),
      upstream,
      ...cachesOf(settings),
      ...accessOf(settings),
      ...graphqlOf(settings),
      ...limitsOf(settings),
      ...corsOf(settings),
      ...rateLimitOf(settings),
      ...sharedStateOf(settings),
      ...observabilityOf(settings),
      ...adminOf(settings),
    },
    upstreamTarget,
    ...logOf(settings),
    ...tracingOf(settings),
  };
}

/** What a reload puts in effect (reload/), from the settings read again. */
export function reloadableOf(settings: Settings): ReloadableSettings {
  const { access, graphql } = optionsOf(settings).gateway;
  return { ...access, trustedDocuments: graphql.trustedDocuments };
}

/** What is left of a group once its function has taken every setting out by name: nothing. */
type NothingLeft = Record<string, never>;

function serverOf({
  host,
  port,
  headersTimeoutMs,
  requestTimeoutMs,
  maxConnections,
  maxConnectionsPerAddress,
  refusalLingerMs,
  refusalLingerBytes,
  idleSocketTimeoutMs,
  responseWriteTimeoutMs,
  ...unread
}: SettingsOf<typeof serverSettings>): Pick<GatewayParts, 'server'> {
  unread satisfies NothingLeft;
  return {
    server: {
      host,
      port,
      requestTimeouts: { headersMs: headersTimeoutMs, requestMs: requestTimeoutMs },
      socketTimeouts: { idleMs: idleSocketTimeoutMs, answerWriteMs: responseWriteTimeoutMs },
      connections: { maxConnections, maxPerAddress: maxConnectionsPerAddress },
      refusalLinger: { ms: refusalLingerMs, bytes: refusalLingerBytes },
    },
  };
}

function upstreamOf({
  upstreamUrl,
  upstreamClientId,
  upstreamClientSecret,
  upstreamPageParam,
  upstreamConnections,
  upstreamConnectTimeoutMs,
  upstreamHeadersTimeoutMs,
  upstreamBodyTimeoutMs,
  requestDeadlineMs,
  upstreamMaxInFlight,
  upstreamRetries,
  upstreamRetryBaseMs,
  upstreamBreakerFailures,
  upstreamBreakerCooldownMs,
  upstreamMaxRetryAfterMs,
  tokenRefusedCooldownMs,
  upstreamMaxCallsPerMinute,
  upstreamTokenDefaultLifetimeMs,
  upstreamTokenMinLifetimeMs,
  upstreamTokenMaxLifetimeMs,
  ...unread
}: UpstreamSettings): Pick<ConfiguredOptions, 'upstreamTarget'> & Pick<GatewayParts, 'upstream'> {
  unread satisfies NothingLeft;
  return {
    // The checks (config/checks.ts) ask for all three or none.
    upstreamTarget:
      upstreamUrl && upstreamClientId && upstreamClientSecret
        ? { url: upstreamUrl, clientId: upstreamClientId, clientSecret: upstreamClientSecret }
        : undefined,
    upstream: {
      pageParam: upstreamPageParam,
      http: {
        connections: upstreamConnections,
        connectTimeoutMs: upstreamConnectTimeoutMs,
        headersTimeoutMs: upstreamHeadersTimeoutMs,
        bodyTimeoutMs: upstreamBodyTimeoutMs,
        maxInFlight: upstreamMaxInFlight,
        breaker: { failureThreshold: upstreamBreakerFailures, cooldownMs: upstreamBreakerCooldownMs },
        maxRetryAfterMs: upstreamMaxRetryAfterMs,
        maxCallsPerMinute: upstreamMaxCallsPerMinute,
      },
      retry: { retries: upstreamRetries, baseDelayMs: upstreamRetryBaseMs },
      callTimeoutMs: requestDeadlineMs,
      refusedCredentialsCooldownMs: tokenRefusedCooldownMs,
      tokenLifetime: { defaultMs: upstreamTokenDefaultLifetimeMs, minMs: upstreamTokenMinLifetimeMs, maxMs: upstreamTokenMaxLifetimeMs },
    },
  };
}

function cachesOf({
  cacheTtlMs,
  cacheStaleWhileRevalidateMs,
  cacheStaleIfErrorMs,
  cacheMaxBytes,
  responseCache,
  cdnTagHeader,
  ...unread
}: SettingsOf<typeof cacheSettings>): Pick<GatewayParts, 'caches'> {
  unread satisfies NothingLeft;
  return {
    caches: {
      maxBytes: cacheMaxBytes,
      ttlMs: cacheTtlMs,
      staleWhileRevalidateMs: cacheStaleWhileRevalidateMs,
      staleIfErrorMs: cacheStaleIfErrorMs,
      responseCache,
      tagHeader: cdnTagHeader === 'none' ? undefined : cdnTagHeader,
    },
  };
}

function accessOf({
  apiKeys,
  jwtIssuer,
  jwtAudience,
  jwtJwksUrl,
  jwtSecret,
  allowAnonymous,
  ...unread
}: SettingsOf<typeof accessSettings>): Pick<GatewayParts, 'access'> {
  unread satisfies NothingLeft;
  return { access: { apiKeys, jwt: jwtSettingsOf(jwtIssuer, jwtAudience, jwtJwksUrl, jwtSecret), allowAnonymous } };
}

function graphqlOf({
  trustedDocuments,
  allowArbitraryOperations,
  graphiql,
  introspection,
  nodeEnv,
  requestDeadlineMs,
  ...unread
}: GraphqlSettings & SettingsOf<typeof modeSettings> & Pick<UpstreamSettings, 'requestDeadlineMs'>): Pick<GatewayParts, 'graphql'> {
  unread satisfies NothingLeft;
  return {
    graphql: {
      trustedDocuments,
      allowArbitraryOperations,
      graphiql,
      introspection,
      production: nodeEnv === 'production',
      requestDeadlineMs,
    },
  };
}

function limitsOf({
  maxBodyBytes,
  maxDocumentLength,
  maxDepth,
  maxAliases,
  maxDirectives,
  maxTokens,
  maxExpandedSelections,
  maxUpstreamSearches,
  maxResultFields,
  maxResponseBytes,
  batchingLimit,
  searchMaxQueryLength,
  ...unread
}: RequestLimitSettings): Pick<GatewayParts, 'limits'> {
  unread satisfies NothingLeft;
  return {
    limits: {
      maxBodyBytes,
      maxDocumentLength,
      maxDepth,
      maxAliases,
      maxDirectives,
      maxTokens,
      maxExpandedSelections,
      maxUpstreamSearches,
      maxResultFields,
      maxResponseBytes,
      batchingLimit,
      searchMaxQueryLength,
    },
  };
}

function corsOf({ corsAllowedOrigins, ...unread }: SettingsOf<typeof corsSettings>): Pick<GatewayParts, 'cors'> {
  unread satisfies NothingLeft;
  return { cors: { allowedOrigins: corsAllowedOrigins } };
}

function rateLimitOf({
  rateLimitPerMinute,
  rateLimitBurst,
  rateLimitMaxClients,
  trustedProxyCount,
  ...unread
}: SettingsOf<typeof rateLimitSettings>): Pick<GatewayParts, 'rateLimit'> {
  unread satisfies NothingLeft;
  return { rateLimit: { perMinute: rateLimitPerMinute, burst: rateLimitBurst, maxClients: rateLimitMaxClients, trustedProxyCount } };
}

function sharedStateOf({
  redisUrl,
  redisSentinelPassword,
  redisKeyPrefix,
  redisCommandTimeoutMs,
  ...unread
}: SharedStateSettings): Pick<GatewayParts, 'sharedState'> {
  unread satisfies NothingLeft;
  return {
    sharedState:
      redisUrl === undefined
        ? undefined
        : {
            target: redisUrl,
            sentinelPassword: redisSentinelPassword,
            keyPrefix: redisKeyPrefix,
            commandTimeoutMs: redisCommandTimeoutMs,
          },
  };
}

function observabilityOf({
  metricsPort,
  metricsHost,
  shutdownDrainDelayMs,
  ...unread
}: SettingsOf<typeof observabilitySettings>): Pick<GatewayParts, 'metrics' | 'shutdown'> {
  unread satisfies NothingLeft;
  return {
    metrics: metricsPort === undefined ? undefined : { host: metricsHost, port: metricsPort },
    shutdown: { drainDelayMs: shutdownDrainDelayMs },
  };
}

function adminOf({ adminPort, adminHost, adminToken, ...unread }: AdminSettings): Pick<GatewayParts, 'admin'> {
  unread satisfies NothingLeft;
  // The checks (config/checks.ts) ask for ADMIN_TOKEN wherever ADMIN_PORT is set.
  return {
    admin: adminPort === undefined || adminToken === undefined ? undefined : { host: adminHost, port: adminPort, token: adminToken },
  };
}

function logOf({ logLevel, logFormat, ...unread }: SettingsOf<typeof logSettings>): Pick<ConfiguredOptions, 'log'> {
  unread satisfies NothingLeft;
  return { log: { level: logLevel, format: logFormat } };
}

function tracingOf({
  otelSdkDisabled,
  otelTracesExporter,
  otelExporterOtlpEndpoint,
  otelExporterOtlpTracesEndpoint,
  otelServiceName,
  otelRecordSearchTerms,
  // The SDK reads these from the environment itself; they are declared so that a bad value stops the start.
  otelExporterOtlpProtocol: _protocol,
  otelExporterOtlpTracesProtocol: _tracesProtocol,
  otelTracesSampler: _sampler,
  otelTracesSamplerArg: _samplerArg,
  ...unread
}: SettingsOf<typeof tracingSettings>): Pick<ConfiguredOptions, 'tracingSettings'> {
  unread satisfies NothingLeft;
  const on =
    !otelSdkDisabled &&
    otelTracesExporter === 'otlp' &&
    (otelExporterOtlpEndpoint !== undefined || otelExporterOtlpTracesEndpoint !== undefined);
  return { tracingSettings: on ? { serviceName: otelServiceName, recordSearchTerms: otelRecordSearchTerms } : undefined };
}
