import type { SharingState } from '../shared-state/redis-health.js';
import type { RedisTarget } from '../shared-state/redis-target.js';
import type { Clock } from '../upstream/resilience/clock.js';
import type { SharedStore } from '../upstream/shared-store.js';
import type { UpstreamLog } from '../upstream/log.js';

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

/** The fleet's Redis (REDIS_URL and the settings that go with it). */
export interface SharedStateOptions {
  /** One node, a cluster or a master's sentinels, as REDIS_URL names them, user and password in it. */
  target: RedisTarget;
  /** With a sentinel target, the sentinels' own password (REDIS_SENTINEL_PASSWORD). */
  sentinelPassword: string | undefined;
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
