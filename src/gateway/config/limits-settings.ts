import {
  DEFAULT_BATCHING_LIMIT,
  DEFAULT_MAX_ALIASES,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_DIRECTIVES,
  DEFAULT_MAX_DOCUMENT_LENGTH,
  DEFAULT_MAX_EXPANDED_SELECTIONS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RESULT_FIELDS,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_UPSTREAM_SEARCHES,
  DEFAULT_SEARCH_MAX_QUERY_LENGTH,
  DEFAULT_RATE_LIMIT_BURST,
  DEFAULT_RATE_LIMIT_MAX_CLIENTS,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  DEFAULT_TRUSTED_PROXY_COUNT,
} from './defaults.js';
import type { EnvReader } from './env-reader.js';

/** How much one request may ask for: its body, its document, the upstream searches it starts. */
export interface RequestLimitSettings {
  maxBodyBytes: number;
  maxDocumentLength: number;
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  maxTokens: number;
  /** Most selections a document may hold once its fragments are expanded where they are spread. */
  maxExpandedSelections: number;
  maxUpstreamSearches: number;
  /** Most fields an operation's answer may hold, each counted once per entry of the lists above it. */
  maxResultFields: number;
  /** Most bytes of JSON one request's answer may hold; what is held for clients that do not read is bounded by a multiple of it. */
  maxResponseBytes: number;
  /** Most operations in one batched request; 0: batching off. */
  batchingLimit: number;
  searchMaxQueryLength: number;
}

/** How often one client may ask, and which address an anonymous client is counted under. */
export interface RateLimitSettings {
  /** 0: no rate limit. */
  rateLimitPerMinute: number;
  rateLimitBurst: number;
  rateLimitMaxClients: number;
  /** Reverse proxies in front whose X-Forwarded-For entries are believed. */
  trustedProxyCount: number;
}

export function readRequestLimits(reader: EnvReader): RequestLimitSettings {
  return {
    maxBodyBytes: reader.integer('MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1_024, 100 * 1024 * 1024),
    maxDocumentLength: reader.integer('MAX_DOCUMENT_LENGTH', DEFAULT_MAX_DOCUMENT_LENGTH, 100, 10_000_000),
    maxDepth: reader.integer('MAX_DEPTH', DEFAULT_MAX_DEPTH, 1, 1_000),
    maxAliases: reader.integer('MAX_ALIASES', DEFAULT_MAX_ALIASES, 0, 1_000),
    maxDirectives: reader.integer('MAX_DIRECTIVES', DEFAULT_MAX_DIRECTIVES, 0, 1_000),
    maxTokens: reader.integer('MAX_TOKENS', DEFAULT_MAX_TOKENS, 10, 1_000_000),
    maxExpandedSelections: reader.integer('MAX_EXPANDED_SELECTIONS', DEFAULT_MAX_EXPANDED_SELECTIONS, 1, 1_000_000),
    maxUpstreamSearches: reader.integer('MAX_UPSTREAM_SEARCHES', DEFAULT_MAX_UPSTREAM_SEARCHES, 1, 1_000),
    maxResultFields: reader.integer('MAX_RESULT_FIELDS', DEFAULT_MAX_RESULT_FIELDS, 1, 10_000_000),
    maxResponseBytes: reader.integer('MAX_RESPONSE_BYTES', DEFAULT_MAX_RESPONSE_BYTES, 16 * 1024, 64 * 1024 * 1024),
    batchingLimit: reader.integer('BATCHING_LIMIT', DEFAULT_BATCHING_LIMIT, 0, 100),
    searchMaxQueryLength: reader.integer('SEARCH_MAX_QUERY_LENGTH', DEFAULT_SEARCH_MAX_QUERY_LENGTH, 1, 10_000),
  };
}

export function readRateLimits(reader: EnvReader): RateLimitSettings {
  return {
    rateLimitPerMinute: reader.integer('RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMIT_PER_MINUTE, 0, 6_000_000),
    rateLimitBurst: reader.integer('RATE_LIMIT_BURST', DEFAULT_RATE_LIMIT_BURST, 1, 1_000_000),
    rateLimitMaxClients: reader.integer('RATE_LIMIT_MAX_CLIENTS', DEFAULT_RATE_LIMIT_MAX_CLIENTS, 1, 10_000_000),
    trustedProxyCount: reader.integer('TRUSTED_PROXY_COUNT', DEFAULT_TRUSTED_PROXY_COUNT, 0, 10),
  };
}
