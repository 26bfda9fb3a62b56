import type { Clock } from '../upstream/resilience/clock.js';
import type { SharedStore } from '../upstream/shared-store.js';
import type { UpstreamLog } from '../upstream/log.js';

export interface ClosableSharedStore extends SharedStore {
  /** Whether Redis answers now: false while it is taken to be away and this instance goes on alone. */
  readonly sharing: boolean;
  close(): Promise<void>;
}

/** The fleet's Redis (REDIS_URL and the settings that go with it). */
export interface SharedStateOptions {
  /** `redis://` or `rediss://` (TLS), user and password in it. */
  url: URL;
  /** Put before every key. */
  keyPrefix: string;
  /** The deadline of every call, held by the gateway itself. */
  commandTimeoutMs: number;
}

/** The fleet's shared store, connecting in the background; none without REDIS_URL. `clock`: Redis's own unless a test gives one. */
export async function openSharedStore(
  options: SharedStateOptions | undefined,
  log: UpstreamLog,
  clock?: Clock,
): Promise<ClosableSharedStore | undefined> {
  if (options === undefined) return undefined;
  // Loaded only here: a gateway without REDIS_URL never loads node-redis.
  const { RedisStore } = await import('../shared-state/redis-store.js');
  return RedisStore.open({ ...options, log, clock });
}
