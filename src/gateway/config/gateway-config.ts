import { type AccessSettings, readAccessSettings } from './access-settings.js';
import { type CacheSettings, readCacheSettings } from './cache-settings.js';
import { type CorsSettings, readCorsSettings } from './cors-settings.js';
import { DEFAULT_NODE_ENV, NODE_ENVS } from './defaults.js';
import { type Env, EnvReader } from './env-reader.js';
import { type GraphqlSettings, readGraphqlSettings } from './graphql-settings.js';
import type { LogLevel } from '../logger.js';
import { type RateLimitSettings, type RequestLimitSettings, readRateLimits, readRequestLimits } from './limits-settings.js';
import { type ObservabilitySettings, readObservabilitySettings } from './observability-settings.js';
import { readLogLevel, readServerSettings, type ServerSettings } from './server-settings.js';
import { readTracingSettings, type TracingSettings } from './tracing-settings.js';
import { readSharedStateSettings, type SharedStateSettings } from './shared-state-settings.js';
import { readUpstreamSettings, type UpstreamSettings } from './upstream-settings.js';

/**
 * The gateway's settings, read from environment variables and checked before
 * anything starts. Each feature's settings are read by a function of their own
 * beside this file; each default is a named constant in defaults.ts, and
 * README.md's settings table mirrors them.
 */
export interface GatewayConfig
  extends ServerSettings,
    UpstreamSettings,
    CacheSettings,
    AccessSettings,
    GraphqlSettings,
    RequestLimitSettings,
    CorsSettings,
    RateLimitSettings,
    SharedStateSettings,
    ObservabilitySettings {
  logLevel: LogLevel;
  /** Unset: tracing is off (no OTLP endpoint, or OTEL_SDK_DISABLED). */
  tracing: TracingSettings | undefined;
  /** NODE_ENV=production: masked errors without stack traces, no field suggestions, GraphiQL and introspection off unless set. */
  production: boolean;
}

/** Every problem found in the environment, one line each. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

/** Problems are listed in the order the variables are read here. */
export function readConfig(env: Env = process.env): GatewayConfig {
  const reader = new EnvReader(env);
  const server = readServerSettings(reader);
  const upstream = readUpstreamSettings(reader);
  const cache = readCacheSettings(reader);
  const production = reader.oneOf('NODE_ENV', NODE_ENVS, DEFAULT_NODE_ENV) === 'production';
  const config: GatewayConfig = {
    ...server,
    ...upstream,
    ...cache,
    production,
    ...readAccessSettings(reader, production),
    ...readGraphqlSettings(reader, production),
    ...readRequestLimits(reader),
    ...readCorsSettings(reader),
    ...readRateLimits(reader),
    ...readSharedStateSettings(reader),
    ...readObservabilitySettings(reader, production, server.port),
    logLevel: readLogLevel(reader),
    ...readTracingSettings(reader),
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return config;
}
