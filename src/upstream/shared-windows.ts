import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { dataTags } from './cache-tags.js';
import { type Clock, wallTime } from './resilience/clock.js';
import type { SearchQuery } from './search-query.js';
import type { SharedStore, StoredWindow, WindowClaim } from './shared-store.js';
import { decodeWindow, encodeWindow } from './window-codec.js';
import type { SearchWindow } from './window-size.js';

/** How often an instance waiting for another's fetch of a window asks again. */
export const WINDOW_POLL_MS = 5;

export interface SharedWindowsOptions {
  store: SharedStore;
  /** How long a window is fresh, and how long any instance may serve it. */
  ttlMs: number;
  maxAgeMs: number;
  pageSize: number;
  /** How long one fetch may take: the lock's lifetime, and the longest another instance waits for it. */
  fetchTimeoutMs: number;
  /** This instance's clock: a window read from the store is given to it as fetched its age (on the store's clock) ago. */
  clock: Clock;
}

/** What the store answered for a window: the window, if it holds one still served, and unless it was fresh, the claim on its fetch. */
export interface SharedLookup {
  window: SearchWindow | undefined;
  claim: WindowFetchClaim | undefined;
}

/** A claim made on a window's fetch, handed on to `fetch` so that it costs no second round trip. */
export interface WindowFetchClaim {
  lockId: string;
  answer: WindowClaim;
}

/**
 * Search windows as a second cache level shared by a fleet, and one upstream
 * fetch per window for the whole fleet. One round trip reads the window and,
 * when it is not fresh, claims its fetch (the lock, see
 * SharedStore.claimWindow); the instance that takes the lock calls the
 * upstream (each call admitted by the fleet's hold and budget, see
 * SharedStore.admit) and publishes the window, releasing the lock, in one
 * more. The others ask again until the window is there, and call the upstream
 * themselves only when the lock is gone without a window, their wait is over
 * or the store is away. Ages are the store's: an instance whose clock runs
 * ahead or behind makes no window fresher or older for the others.
 */
export class SharedWindows {
  readonly #options: SharedWindowsOptions;

  constructor(options: SharedWindowsOptions) {
    this.#options = options;
  }

  /** One round trip: the fleet's window for `key`, if it may still be served, and the claim on its fetch unless it is fresh. */
  async lookup(key: string): Promise<SharedLookup> {
    const lockId = randomUUID();
    const answer = await this.#claim(key, lockId);
    const window = this.#decode(key, answer.stored);
    if (answer.outcome === 'fresh' && window !== undefined) return { window, claim: undefined };
    return { window, claim: { lockId, answer } };
  }

  /**
   * A fresh window for `key`: one another instance fetched, or one
   * `fetchUpstream` fetches under the fleet's lock and publishes. `claim` is
   * the answer of an earlier lookup, used rather than asked again.
   */
  async fetch(
    key: string,
    query: SearchQuery,
    claim: WindowFetchClaim | undefined,
    fetchUpstream: () => Promise<SearchWindow>,
  ): Promise<SearchWindow> {
    const lockId = claim?.lockId ?? randomUUID();
    let answer = claim?.answer;
    // Half the fetch's time at most: a holder that died leaves its lock until it expires, and the waiter must
    // still have time to call the upstream itself within its callers' deadlines.
    const waitUntil = Date.now() + this.#options.fetchTimeoutMs / 2;
    for (;;) {
      answer ??= await this.#claim(key, lockId);
      switch (answer.outcome) {
        case 'fresh': {
          const window = this.#decode(key, answer.stored);
          // A fresh value that does not read as a window is fetched anew, and replaced.
          return window ?? this.#fetchAndPublish(key, query, undefined, answer.purges, fetchUpstream);
        }
        case 'taken':
        case 'unavailable':
          // Unavailable: a lock an earlier, late claim took is still this one's, and released after the fetch (no
          // position of the purges was read: the window is not published).
          return this.#fetchAndPublish(key, query, lockId, answer.purges, fetchUpstream);
        case 'held':
        case 'missed':
          // A late answer is no outage: asked again (with the same id, so a lock it took is found to be this one's).
          if (Date.now() >= waitUntil) return this.#fetchAndPublish(key, query, lockId, answer.purges, fetchUpstream);
          await pause(WINDOW_POLL_MS);
          answer = undefined;
      }
    }
  }

  /** Lets go of a claim that will not be used: the lock it took, if it took one. */
  async abandon(key: string, claim: WindowFetchClaim): Promise<void> {
    if (claim.answer.outcome === 'taken' || claim.answer.outcome === 'missed')
      await this.#options.store.releaseWindow(storeKey(key), claim.lockId);
  }

  #claim(key: string, lockId: string): Promise<WindowClaim> {
    const { ttlMs, fetchTimeoutMs } = this.#options;
    return this.#options.store.claimWindow({ key: storeKey(key), lockId, lockMs: fetchTimeoutMs, freshMs: ttlMs });
  }

  /** The window stored for `key`, fetched its age ago by this instance's clock; undefined if it does not read as one, or is too old. */
  #decode(key: string, stored: StoredWindow | undefined): SearchWindow | undefined {
    if (stored === undefined || stored.ageMs > this.#options.maxAgeMs) return undefined;
    const window = decodeWindow(stored.value, key, this.#options.pageSize);
    const { clock } = this.#options;
    return window && { ...window, fetchedAt: clock() - stored.ageMs, fetchedAtWall: wallTime(clock) - stored.ageMs };
  }

  /**
   * The upstream's window, published for the others once the caller has it (the publish releases the lock) under
   * the tags of what it holds, with where the log of purges was before the fetch began (`purgesSeen`), so that a
   * purge meanwhile keeps it out; without that (the store did not answer the claim) it is not published. On
   * failure, or unpublished, the lock is released, so nobody waits for it.
   */
  async #fetchAndPublish(
    key: string,
    query: SearchQuery,
    lockId: string | undefined,
    purgesSeen: string | undefined,
    fetchUpstream: () => Promise<SearchWindow>,
  ): Promise<SearchWindow> {
    const { store, clock, maxAgeMs } = this.#options;
    let window: SearchWindow;
    try {
      window = await fetchUpstream();
    } catch (error) {
      if (lockId !== undefined) void store.releaseWindow(storeKey(key), lockId);
      throw error;
    }
    if (purgesSeen === undefined) {
      if (lockId !== undefined) void store.releaseWindow(storeKey(key), lockId);
      return window;
    }
    const ageMs = Math.max(0, clock() - window.fetchedAt);
    const tags = [...dataTags(query, window.slots)];
    void store.publishWindow(storeKey(key), encodeWindow(key, window), ageMs, maxAgeMs - ageMs, lockId, { tags, seen: purgesSeen });
    return window;
  }
}

/** Keys of bounded length whatever the query: a digest of the cache key. */
export function storeKey(key: string): string {
  return `w:${createHash('sha256').update(key).digest('base64url')}`;
}
