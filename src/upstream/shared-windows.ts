import { createHash } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import type { Clock } from './resilience/clock.js';
import type { SharedStore } from './shared-store.js';
import { decodeWindow, encodeWindow } from './window-codec.js';
import type { SearchWindow } from './window-size.js';

/** How often an instance waiting for another's fetch of a window looks whether it is done. */
export const WINDOW_POLL_MS = 5;

export interface SharedWindowsOptions {
  store: SharedStore;
  /** How long a window is fresh, and how long past that any instance may still serve it. */
  ttlMs: number;
  maxAgeMs: number;
  pageSize: number;
  /** How long one fetch may take: the lock's lifetime, and the longest another instance waits for it. */
  fetchTimeoutMs: number;
  /** Judges a window's age, as the in-process cache does; waits for another instance are in real time. */
  clock: Clock;
}

/**
 * Search windows as a second cache level shared by a fleet, and one upstream
 * fetch per window for the whole fleet: the first instance to need a window
 * takes its lock and fetches it; the others wait for it and read it from the
 * store, and call the upstream themselves only when the lock is gone without
 * a window or the store cannot answer.
 */
export class SharedWindows {
  readonly #options: SharedWindowsOptions;

  constructor(options: SharedWindowsOptions) {
    this.#options = options;
  }

  /**
   * The fleet's window for `key` while any instance may still serve it; undefined otherwise. One stamped later
   * than this instance's clock (its writer's clock runs ahead, or the value is not one a gateway wrote) is taken
   * as fetched now: judged by its stamp, it would stay fresh here, and in the in-process cache, past its age.
   */
  async read(key: string): Promise<SearchWindow | undefined> {
    const raw = await this.#options.store.get(storeKey(key));
    const window = raw === undefined ? undefined : decodeWindow(raw, key, this.#options.pageSize);
    if (window === undefined) return undefined;
    const now = this.#options.clock();
    if (window.fetchedAt > now) return { ...window, fetchedAt: now };
    return now - window.fetchedAt <= this.#options.maxAgeMs ? window : undefined;
  }

  /**
   * A fresh window for `key`, newer than `newerThan` (epoch ms of the window
   * the caller holds): one another instance fetched, or one `fetchUpstream`
   * fetches under the fleet's lock and publishes.
   */
  async fetch(key: string, newerThan: number, fetchUpstream: () => Promise<SearchWindow>): Promise<SearchWindow> {
    const usable = (window: SearchWindow | undefined) =>
      window !== undefined && window.fetchedAt > newerThan && this.#options.clock() - window.fetchedAt <= this.#options.ttlMs
        ? window
        : undefined;
    const known = usable(await this.read(key));
    if (known) return known;
    const { store, fetchTimeoutMs } = this.#options;
    const attempt = await store.lock(lockKey(key), fetchTimeoutMs);
    if (attempt.outcome === 'taken') {
      try {
        // Another instance may have published between the read and the lock.
        return usable(await this.read(key)) ?? (await this.#fetchAndPublish(key, fetchUpstream));
      } finally {
        await store.unlock(attempt.lock);
      }
    }
    if (attempt.outcome === 'held') {
      // Half the fetch's time at most: a holder that died leaves its lock until it expires, and the waiter must
      // still have time to call the upstream itself within its callers' deadlines.
      const waitUntil = Date.now() + fetchTimeoutMs / 2;
      while (Date.now() < waitUntil && (await store.locked(lockKey(key))) === true) await pause(WINDOW_POLL_MS);
      const fetched = usable(await this.read(key));
      if (fetched) return fetched;
    }
    return this.#fetchAndPublish(key, fetchUpstream);
  }

  async #fetchAndPublish(key: string, fetchUpstream: () => Promise<SearchWindow>): Promise<SearchWindow> {
    const window = await fetchUpstream();
    const ttlMs = this.#options.maxAgeMs - (this.#options.clock() - window.fetchedAt);
    if (ttlMs > 0) await this.#options.store.set(storeKey(key), encodeWindow(key, window), ttlMs);
    return window;
  }
}

/** Keys of bounded length whatever the query: a digest of the cache key. */
function storeKey(key: string): string {
  return `w:${createHash('sha256').update(key).digest('base64url')}`;
}

function lockKey(key: string): string {
  return `${storeKey(key)}:lock`;
}
