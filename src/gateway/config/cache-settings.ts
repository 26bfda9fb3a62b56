import {
  DEFAULT_CACHE_MAX_BYTES,
  DEFAULT_CACHE_STALE_IF_ERROR_MS,
  DEFAULT_CACHE_STALE_WHILE_REVALIDATE_MS,
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_RESPONSE_CACHE,
} from './defaults.js';
import type { EnvReader } from './env-reader.js';

const WEEK_MS = 7 * 24 * 3_600_000;

/** The search-window cache and the response cache, which share one byte bound. */
export interface CacheSettings {
  cacheTtlMs: number;
  cacheStaleWhileRevalidateMs: number;
  cacheStaleIfErrorMs: number;
  cacheMaxBytes: number;
  responseCache: boolean;
}

export function readCacheSettings(reader: EnvReader): CacheSettings {
  return {
    cacheTtlMs: reader.integer('CACHE_TTL_MS', DEFAULT_CACHE_TTL_MS, 1, WEEK_MS),
    cacheStaleWhileRevalidateMs: reader.integer('CACHE_STALE_WHILE_REVALIDATE_MS', DEFAULT_CACHE_STALE_WHILE_REVALIDATE_MS, 0, WEEK_MS),
    cacheStaleIfErrorMs: reader.integer('CACHE_STALE_IF_ERROR_MS', DEFAULT_CACHE_STALE_IF_ERROR_MS, 0, WEEK_MS),
    cacheMaxBytes: reader.integer('CACHE_MAX_BYTES', DEFAULT_CACHE_MAX_BYTES, 1_024, Number.MAX_SAFE_INTEGER),
    responseCache: reader.boolean('RESPONSE_CACHE', DEFAULT_RESPONSE_CACHE),
  };
}
