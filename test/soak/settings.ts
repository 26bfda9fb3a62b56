import { type GatewayConfig, readConfig } from '../../src/gateway/config/gateway-config.js';

/**
 * The gateway's settings for the soak run, on top of readConfig({}). Short
 * cache times make faults reach the upstream instead of hiding behind the
 * cache; a short breaker cool-down makes recovery happen many times a run.
 */
export const SOAK_GATEWAY_SETTINGS = {
  cacheTtlMs: 2_000,
  cacheStaleWhileRevalidateMs: 500,
  cacheStaleIfErrorMs: 600_000,
  cacheMaxBytes: 32 * 1024 * 1024,
  requestDeadlineMs: 3_000,
  upstreamBreakerCooldownMs: 1_000,
  upstreamMaxInFlight: readConfig({}).upstreamMaxInFlight,
  upstreamPageParam: 'page',
  // The soak's clients all come from one address; the gateway's own limit would refuse most of them.
  rateLimitPerMinute: 0,
  // Nor may the connection limit per address: --concurrency (up to 1,024) connections come from that one address.
  maxConnectionsPerAddress: 0,
} satisfies Partial<GatewayConfig>;

export type SoakGatewaySettings = typeof SOAK_GATEWAY_SETTINGS;

/** Heap growth above this between warm-up and the end fails the run: the cache may fill, nothing else should grow. */
export const HEAP_GROWTH_LIMIT_BYTES = 64 * 1024 * 1024 + SOAK_GATEWAY_SETTINGS.cacheMaxBytes;

/** A request with no answer this long after its deadline counts as hung. */
export const HUNG_AFTER_MS = SOAK_GATEWAY_SETTINGS.requestDeadlineMs + 5_000;

/** Healthy load before the start memory is measured, so that start-up allocations are not counted as growth. */
export const WARM_UP_SECONDS = 5;
