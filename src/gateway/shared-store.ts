import type { SharingState } from '../shared-state/redis-health.js';
import type { Clock } from '../upstream/resilience/clock.js';
import type { SharedStore } from '../upstream/shared-store.js';
import type { UpstreamLog } from '../upstream/log.js';
import type { SharedStateSettings } from './config/settings.js';

export type { SharingState };

export interface ClosableSharedStore extends SharedStore {
  /** Whether Redis serves the gateway now: false while it is taken to be away or refuses it, and this instance goes on alone. */
  readonly sharing: boolean;
  /** The same, and if not sharing, why. */
  readonly state: SharingState;
  /** Resolves once Redis has first served the gateway or refused it, or after a bounded wait: what to wait for before acting alone at start. */
  known(): Promise<void>;
  close(): Promise<void>;
}

/** The fleet's shared store on REDIS_URL, connecting in the background; none without it. `clock`: Redis's own unless a test gives one. */
export async function openSharedStore(
  settings: SharedStateSettings,
  log: UpstreamLog,
  clock?: Clock,
): Promise<ClosableSharedStore | undefined> {
  if (settings.redisUrl === undefined) return undefined;
  // Loaded only here: a gateway without REDIS_URL never loads node-redis.
  const { RedisStore } = await import('../shared-state/redis-store.js');
  return RedisStore.open({
    target: settings.redisUrl,
    sentinelPassword: settings.redisSentinelPassword,
    keyPrefix: settings.redisKeyPrefix,
    commandTimeoutMs: settings.redisCommandTimeoutMs,
    log,
    clock,
  });
}
