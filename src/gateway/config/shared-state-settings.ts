import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS, DEFAULT_REDIS_KEY_PREFIX } from './defaults.js';
import type { EnvReader } from './env-reader.js';

/** Where instances of one fleet share their upstream state; unset, each instance keeps its own. */
export interface SharedStateSettings {
  /** `redis://` or `rediss://`, user and password in it; the password is never logged, printed or returned. */
  redisUrl: URL | undefined;
  /** Put before every key, so that several fleets can share one Redis. */
  redisKeyPrefix: string;
  /** The gateway's own deadline on each Redis call, which node-redis does not hold against a hung server. */
  redisCommandTimeoutMs: number;
}

const KEY_PREFIX = /^[\x21-\x7e]{1,64}$/;

export function readSharedStateSettings(reader: EnvReader): SharedStateSettings {
  return {
    redisUrl: readRedisUrl(reader),
    redisKeyPrefix: readKeyPrefix(reader),
    redisCommandTimeoutMs: reader.integer('REDIS_COMMAND_TIMEOUT_MS', DEFAULT_REDIS_COMMAND_TIMEOUT_MS, 1, 10_000),
  };
}

function readRedisUrl(reader: EnvReader): URL | undefined {
  const raw = reader.string('REDIS_URL');
  if (raw === undefined) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  // The value holds the password: no problem line echoes it.
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    reader.refuse(
      'REDIS_URL',
      'REDIS_URL must be a redis:// or rediss:// URL with a host, such as redis://gateway:password@redis.internal:6379/0',
    );
  } else if (!/^\/?(\d{1,2})?$/.test(url.pathname) || url.search !== '' || url.hash !== '') {
    reader.refuse('REDIS_URL', 'REDIS_URL may name a database number as its path (such as /0), and nothing else after the host');
  } else {
    return url;
  }
  return undefined;
}

function readKeyPrefix(reader: EnvReader): string {
  const raw = reader.string('REDIS_KEY_PREFIX');
  if (raw === undefined) return DEFAULT_REDIS_KEY_PREFIX;
  if (KEY_PREFIX.test(raw)) return raw;
  reader.refuse('REDIS_KEY_PREFIX', 'REDIS_KEY_PREFIX must be at most 64 printable ASCII characters without spaces, such as csg:');
  return DEFAULT_REDIS_KEY_PREFIX;
}

/** The URL as it may be printed: the password replaced. */
export function describeRedisUrl(url: URL): string {
  if (url.password === '') return url.href;
  const shown = new URL(url.href);
  shown.password = 'redacted';
  return shown.href.replace(':redacted@', ':[redacted]@');
}
