import type { Tracer } from '@opentelemetry/api';
import { UpstreamClient } from '../upstream/client.js';
import type { UpstreamLog } from '../upstream/log.js';
import type { UpstreamObserver } from '../upstream/observer.js';
import type { Clock, Sleep } from '../upstream/resilience/clock.js';
import type { SharedStore } from '../upstream/shared-store.js';
import type { UpstreamTarget } from './config/gateway-config.js';
import type { CacheSettings, UpstreamSettings } from './config/settings.js';

/**
 * Largest upstream body read; a larger one is UPSTREAM_BAD_RESPONSE. It
 * leaves room for results many times as rich as a full page of 50 of the data
 * set's; only the first 50 are read anyway, and JSON.parse holds the event
 * loop for the whole body, so a bound several times larger would stall every
 * request in flight.
 */
export const MAX_UPSTREAM_RESPONSE_BYTES = 1024 * 1024;

/** What the upstream client is given besides the settings: its share of the cache bound, and the gateway's log, clock and watchers. */
export interface UpstreamClientParts {
  cacheMaxBytes: number;
  log: UpstreamLog;
  clock: Clock;
  shared: SharedStore | undefined;
  tracer: Tracer | undefined;
  observer: UpstreamObserver | undefined;
  sleep: Sleep | undefined;
}

/** The upstream client for `target` as the settings configure it. */
export function upstreamClientFor(
  config: UpstreamSettings & CacheSettings,
  target: UpstreamTarget,
  parts: UpstreamClientParts,
): UpstreamClient {
  return new UpstreamClient({
    shared: parts.shared,
    baseUrl: target.url,
    credentials: { clientId: target.clientId, clientSecret: target.clientSecret },
    pageParam: config.upstreamPageParam,
    http: {
      connections: config.upstreamConnections,
      connectTimeoutMs: config.upstreamConnectTimeoutMs,
      headersTimeoutMs: config.upstreamHeadersTimeoutMs,
      bodyTimeoutMs: config.upstreamBodyTimeoutMs,
      maxResponseBytes: MAX_UPSTREAM_RESPONSE_BYTES,
      maxInFlight: config.upstreamMaxInFlight,
      breaker: { failureThreshold: config.upstreamBreakerFailures, cooldownMs: config.upstreamBreakerCooldownMs },
      maxRetryAfterMs: config.upstreamMaxRetryAfterMs,
      maxCallsPerMinute: config.upstreamMaxCallsPerMinute,
    },
    cache: {
      ttlMs: config.cacheTtlMs,
      staleWhileRevalidateMs: config.cacheStaleWhileRevalidateMs,
      staleIfErrorMs: config.cacheStaleIfErrorMs,
      maxBytes: parts.cacheMaxBytes,
    },
    retry: { retries: config.upstreamRetries, baseDelayMs: config.upstreamRetryBaseMs },
    callTimeoutMs: config.requestDeadlineMs,
    refusedCredentialsCooldownMs: config.tokenRefusedCooldownMs,
    tokenLifetime: {
      defaultMs: config.upstreamTokenDefaultLifetimeMs,
      minMs: config.upstreamTokenMinLifetimeMs,
      maxMs: config.upstreamTokenMaxLifetimeMs,
    },
    log: parts.log,
    clock: parts.clock,
    tracer: parts.tracer,
    observer: parts.observer,
    sleep: parts.sleep,
  });
}
