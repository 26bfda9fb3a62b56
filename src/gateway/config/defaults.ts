import type { LogLevel } from '../logger.js';

// The default of every setting, named after its variable; README.md's settings table mirrors them.

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_CONNECTIONS = 1_024;
/** A sixteenth of DEFAULT_MAX_CONNECTIONS: a browser opens 6 per origin, so this leaves room for a few behind one NAT. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64;
export const DEFAULT_REFUSAL_LINGER_MS = 3_000;
export const DEFAULT_REFUSAL_LINGER_BYTES = 8 * 1024 * 1024;
export const DEFAULT_IDLE_SOCKET_TIMEOUT_MS = 15_000;
/** A full page of the richest answer (about 35 KiB) takes a client at 10 kbit/s about as long. */
export const DEFAULT_RESPONSE_WRITE_TIMEOUT_MS = 30_000;
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
export const DEFAULT_UPSTREAM_MAX_RETRY_AFTER_MS = 60_000;
export const DEFAULT_TOKEN_REFUSED_COOLDOWN_MS = 30_000;
export const DEFAULT_UPSTREAM_TOKEN_DEFAULT_LIFETIME_MS = 300_000;
export const DEFAULT_UPSTREAM_TOKEN_MIN_LIFETIME_MS = 10_000;
export const DEFAULT_UPSTREAM_TOKEN_MAX_LIFETIME_MS = 3_600_000;
export const DEFAULT_RESPONSE_CACHE = true;
export const DEFAULT_SEARCH_MAX_QUERY_LENGTH = 200;
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';
export const NODE_ENVS = ['development', 'production', 'test'] as const;
export const DEFAULT_NODE_ENV: (typeof NODE_ENVS)[number] = 'development';
export const DEFAULT_MAX_BODY_BYTES = 102_400;
export const DEFAULT_MAX_DOCUMENT_LENGTH = 10_000;
export const DEFAULT_MAX_DEPTH = 10;
export const DEFAULT_MAX_ALIASES = 15;
export const DEFAULT_MAX_DIRECTIVES = 20;
export const DEFAULT_MAX_TOKENS = 1_000;
/**
 * 50 times the largest operation in test/operations (40 selections), and
 * twice what DEFAULT_MAX_TOKENS lets a document write out without fragments,
 * so it bites only where fragments are spread over and over.
 */
export const DEFAULT_MAX_EXPANDED_SELECTIONS = 2_000;
export const DEFAULT_MAX_UPSTREAM_SEARCHES = 5;
/**
 * The company card (test/operations/search-companies.graphql) at a page of
 * 50 counts 4,261 fields, the dashboard's 153: this admits two full pages of
 * cards in one operation, and refuses the review's 15 aliases of one page
 * (126,045 fields, a 993 KB answer).
 */
export const DEFAULT_MAX_RESULT_FIELDS = 10_000;
/**
 * About thirty times the company card at a page of 50: room for any answer a
 * client asks for in earnest, far below what one long upstream string under
 * every alias made of an answer.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const DEFAULT_BATCHING_LIMIT = 0;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
export const DEFAULT_RATE_LIMIT_BURST = 100;
export const DEFAULT_RATE_LIMIT_MAX_CLIENTS = 10_000;
export const DEFAULT_TRUSTED_PROXY_COUNT = 0;
export const DEFAULT_OTEL_SERVICE_NAME = 'company-search-gateway';
export const OTEL_TRACES_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;
export const DEFAULT_OTEL_TRACES_SAMPLER: (typeof OTEL_TRACES_SAMPLERS)[number] = 'parentbased_always_on';
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export const DEFAULT_OTLP_PROTOCOL: (typeof OTLP_PROTOCOLS)[number] = 'http/protobuf';
export const DEFAULT_OTEL_RECORD_SEARCH_TERMS = false;
export const DEFAULT_REDIS_KEY_PREFIX = 'csg:';
/** A local Redis answers in well under a millisecond (p99 1–4 ms on a busy machine); a hung one must not hold a request longer. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 50;
export const DEFAULT_METRICS_HOST = '127.0.0.1';
/** In production, long enough for a load balancer probing every 2 s to see /ready fail twice; elsewhere a stop is not held up. */
export const DEFAULT_SHUTDOWN_DRAIN_DELAY_MS = 0;
export const DEFAULT_PRODUCTION_SHUTDOWN_DRAIN_DELAY_MS = 5_000;
