import { randomUUID } from 'node:crypto';
import type { PurgeLogRead, PurgePosition, StorePurge } from '../upstream/shared-store.js';
import {
  DROP_WINDOW_SCRIPT,
  INDEX_PAGE_SCRIPT,
  LOG_PURGE_SCRIPT,
  MARK_PURGE_SCRIPT,
  POSITION_SCRIPT,
  PURGE_LOG_LENGTH,
  PURGES_SINCE_SCRIPT,
  REGISTER_WINDOW_SCRIPT,
  UNINDEX_SCRIPT,
} from './purge-scripts.js';
import { failed, type RedisConnection } from './redis-connection.js';

/**
 * The fleet's purge keys (purge-scripts.ts), after the prefix and hash tag they share (one slot: each purge script
 * reads several): the state, the log, each tag's index and mark, and the sharded channel LOG_PURGE_SCRIPT tells on.
 */
const STATE_KEY = 'state';
const LOG_KEY = 'log';
const TAG_INDEX = 'x:';
const TAG_MARK = 'p:';
const CHANNEL = 'purged';
/** Beside each window key: where the state was when a purge dropped it. */
const TOMBSTONE = ':purged';

/** Windows a purge drops at once: one script each, pipelined, so that a large purge holds Redis in short steps. */
const DROPS_AT_ONCE = 100;

/**
 * Index entries a purge reads at once: a whole index (every window of a large cache under `csg:all`) read in one reply
 * would hold Redis, and this process's memory, for as long as the cache is large, and miss the command deadline.
 */
export const PURGE_PAGE = 500;

/**
 * Pages one purge sends at most before it reads as not sent (and is sent again, going on from where it stopped): an
 * index that fetches fill again as fast as it is emptied holds no purge for ever.
 */
const PAGES_PER_PURGE = 2_000;

/**
 * Purges on Redis as purge-scripts.ts lays them out, in steps that each touch
 * the fleet's purge keys or one window's, never both. `isWindowKey` says
 * whether a key read back from an index is one the gateway writes for a
 * window: anything else (written there by hand) is never dropped, whatever
 * it names (the fleet's token among them).
 */
export class RedisPurges {
  readonly #redis: RedisConnection;
  readonly #prefix: string;
  readonly #isWindowKey: (key: string) => boolean;

  /** `prefix`: the key prefix and the hash tag every purge key shares (`csg:{purges}`). */
  constructor(redis: RedisConnection, prefix: string, isWindowKey: (key: string) => boolean) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#isWindowKey = isWindowKey;
  }

  /** The tombstone beside a window key. */
  static tombstoneOf(windowKey: string): string {
    return `${windowKey}${TOMBSTONE}`;
  }

  /** Where purges are now, for a claim to hand on to the publish of what it fetches; undefined when Redis did not answer. */
  async position(): Promise<string | undefined> {
    const reply = await this.#redis.script(POSITION_SCRIPT, [this.#key(STATE_KEY)], []);
    return typeof reply === 'string' ? reply : undefined;
  }

  /** Indexes a window about to be stored under its tags; false when a purge of any came after `seen`, or Redis did not answer. */
  async register(windowKey: string, tags: readonly string[], keepMs: number, seen: string): Promise<boolean> {
    const tagKeys = tags.flatMap((tag) => [this.#key(TAG_INDEX + tag), this.#key(TAG_MARK + tag)]);
    const reply = await this.#redis.script(
      REGISTER_WINDOW_SCRIPT,
      [this.#key(STATE_KEY), ...tagKeys],
      [windowKey, String(Math.floor(keepMs)), seen],
    );
    return reply === 1;
  }

  async purge(tag: string, keepMs: number): Promise<StorePurge | undefined> {
    const keep = String(Math.max(1, Math.ceil(keepMs)));
    // A step not answered in time may or may not have happened: the purge reads as not sent, and FleetPurges sends it
    // again (at its next read of the log). Sent twice, it marks and logs again, and drops what the first left indexed.
    const position = await this.#redis.script(MARK_PURGE_SCRIPT, [this.#key(STATE_KEY), this.#key(TAG_MARK + tag)], [keep, randomUUID()]);
    if (typeof position !== 'string') return undefined;
    let windows = 0;
    for (let page = 0; ; page += 1) {
      if (page === PAGES_PER_PURGE) return undefined;
      const dropped = await this.#dropPage(this.#key(TAG_INDEX + tag), position, keep);
      if (dropped === undefined) return undefined;
      if (dropped === 'empty') break;
      windows += dropped;
    }
    const logged = await this.#redis.script(
      LOG_PURGE_SCRIPT,
      [this.#key(STATE_KEY), this.#key(LOG_KEY)],
      [tag, String(PURGE_LOG_LENGTH), this.#key(CHANNEL), randomUUID()],
    );
    if (!Array.isArray(logged)) return undefined;
    const [log, sequence] = logged as unknown[];
    if (typeof log !== 'string' || typeof sequence !== 'number') return undefined;
    return { windows, position: { log, sequence } };
  }

  /**
   * Drops the windows of the first page of an index, then takes the page out of it: how many were there, 'empty' when
   * the index is, undefined when a step failed (what it did not take out is read again by the purge sent again).
   */
  async #dropPage(index: string, position: string, keep: string): Promise<number | 'empty' | undefined> {
    const page = await this.#redis.script(INDEX_PAGE_SCRIPT, [index], [String(PURGE_PAGE)]);
    if (!Array.isArray(page) || page.some((entry) => typeof entry !== 'string')) return undefined;
    if (page.length === 0) return 'empty';
    const keys = (page as string[]).filter((key, i) => i % 2 === 0 && this.#isWindowKey(key));
    let windows = 0;
    for (let first = 0; first < keys.length; first += DROPS_AT_ONCE) {
      const drops = keys
        .slice(first, first + DROPS_AT_ONCE)
        .map((key) => this.#redis.script(DROP_WINDOW_SCRIPT, [key, RedisPurges.tombstoneOf(key)], [position, keep]));
      for (const reply of await Promise.all(drops)) {
        if (failed(reply) || typeof reply !== 'number') return undefined;
        windows += reply;
      }
    }
    // Keys no gateway writes for a window (planted by hand) are taken out too, never dropped.
    const taken = await this.#redis.script(UNINDEX_SCRIPT, [index], page as string[]);
    return typeof taken === 'number' ? windows : undefined;
  }

  async since(position: PurgePosition | undefined): Promise<PurgeLogRead | undefined> {
    const reply = await this.#redis.script(
      PURGES_SINCE_SCRIPT,
      [this.#key(STATE_KEY), this.#key(LOG_KEY)],
      [...(position === undefined ? ['where', '', '0'] : ['since', position.log, String(position.sequence)]), String(PURGE_LOG_LENGTH)],
    );
    if (!Array.isArray(reply)) return undefined;
    const [outcome, log, sequence, ...entries] = reply as unknown[];
    if (typeof log !== 'string' || typeof sequence !== 'number') return undefined;
    const now = { log, sequence };
    if (outcome === 'gap') return { position: now, gap: true };
    if (outcome === 'at') return { position: now, tags: [] };
    if (outcome !== 'since') return undefined;
    // Newest first, each `sequence tag`: read back oldest first, and a log not in order (written by hand) is a gap.
    const tags: string[] = [];
    for (const [i, entry] of entries.reverse().entries()) {
      const [entrySequence, tag] = typeof entry === 'string' ? entry.split(' ', 2) : [];
      if (tag === undefined || Number(entrySequence) !== sequence - entries.length + 1 + i) return { position: now, gap: true };
      tags.push(tag);
    }
    return { position: now, tags };
  }

  onPurge(listener: () => void): void {
    this.#redis.subscribe(this.#key(CHANNEL), listener);
  }

  #key(name: string): string {
    return this.#prefix + name;
  }
}
