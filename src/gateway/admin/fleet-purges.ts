import { ALL_TAG } from '../../upstream/cache-tags.js';
import { type Alarm, systemAlarm } from '../../upstream/resilience/clock.js';
import type { PurgePosition, SharedStore } from '../../upstream/shared-store.js';
import type { Logger } from '../logger.js';

/**
 * How often each instance reads the fleet's log of purges, told or not: the
 * longest an instance that reaches Redis serves data purged elsewhere (Redis
 * pub/sub tells it within milliseconds, unless its connection was lost).
 */
export const PURGE_CHECK_INTERVAL_MS = 1_000;

/** Purges made while Redis was away, kept to be sent once it is back; past this many, one purge of everything is sent instead. */
export const MAX_PENDING_PURGES = 100;

/**
 * Most purges an instance behind applies one by one when it reads the log;
 * past this many at once, it drops everything it holds, once, rather than
 * walking its caches once per purge (the log keeps up to PURGE_LOG_LENGTH).
 */
export const MAX_TAGS_APPLIED_ONE_BY_ONE = 32;

/** What a purge dropped from this instance's memory; undefined for a tag it cannot read (one written into Redis by hand). */
export type LocalPurge = { windows: number; answers: number } | undefined;

/** This instance's caches, as purges drop from them. */
export interface LocalCaches {
  purge(tag: string): LocalPurge;
}

export interface PurgeOutcome {
  tag: string;
  /** What this instance's memory dropped. */
  memory: { windows: number; answers: number };
  /** Windows dropped from the fleet's Redis; undefined when it was not reached, and only this instance purged. */
  shared: number | undefined;
  /** Whether there is a fleet to tell: REDIS_URL is set. */
  fleet: boolean;
}

export interface FleetPurgesOptions {
  /** The fleet's store, as purges use it; undefined without REDIS_URL, where this instance is the whole fleet. */
  store: Pick<SharedStore, 'purge' | 'purgesSince' | 'onPurge'> | undefined;
  caches: LocalCaches;
  log: Logger;
  /** How long a window may be kept (TTL and the longest stale period): how long a purge keeps older windows out of Redis. */
  windowKeepMs: number;
  /** Sets each next read of the fleet's log; tests ring it when they choose. */
  alarm?: Alarm | undefined;
}

/**
 * Purges across a fleet. A purge drops what its tag names from Redis (the
 * windows, in one step that also keeps windows fetched before it from being
 * stored there again, see SharedStore.purge) and from this instance's memory,
 * and is recorded in the fleet's log. The other instances apply it when Redis
 * tells them (pub/sub), and in any case at their next read of the log, every
 * PURGE_CHECK_INTERVAL_MS; one that missed more than the log holds drops all
 * it holds. A purge made while Redis is away drops only this instance's
 * memory, and is sent to Redis once it answers again.
 *
 * Bounded bookkeeping: a position in the log, at most MAX_PENDING_PURGES
 * purges waiting for Redis; Redis keeps each purge's mark as long as a window
 * lives, and the last PURGE_LOG_LENGTH purges.
 */
export class FleetPurges {
  readonly #options: FleetPurgesOptions;
  /** The last purge of the fleet's log applied here; undefined until the log has been read once. */
  #position: PurgePosition | undefined;
  /** The first read of the log failed: whatever this instance cached meanwhile may predate purges it cannot know of. */
  #startedUnaware = false;
  #pending: string[] = [];
  #sending: Promise<boolean> | undefined;
  #checking: Promise<void> | undefined;
  #checkAgain = false;
  #cancelNext: (() => void) | undefined;
  #closed = false;

  constructor(options: FleetPurgesOptions) {
    this.#options = options;
  }

  /** Reads where the fleet's log is, then follows it: told by Redis, and every PURGE_CHECK_INTERVAL_MS. */
  async start(): Promise<void> {
    const { store } = this.#options;
    if (store === undefined) return;
    store.onPurge(() => void this.check());
    await this.check();
    this.#startedUnaware = this.#position === undefined;
    this.#scheduleCheck();
  }

  /** Drops what `tag` names across the fleet; `by` says who asked, for the log. */
  async purge(tag: string, by: Record<string, string | undefined>): Promise<PurgeOutcome> {
    const { store, caches, log, windowKeepMs } = this.#options;
    // Purges made while Redis was away go first: the fleet applies them in the order they were made.
    const sent = store !== undefined && (await this.#sendPending()) ? await store.purge(tag, windowKeepMs) : undefined;
    const memory = caches.purge(tag) ?? { windows: 0, answers: 0 };
    if (store !== undefined && sent === undefined) this.#keepPending(tag);
    if (sent !== undefined) {
      // Next in the log after what this instance has applied: nothing to read. Otherwise others purged too (or the
      // log is new here): the log is read, this purge again with them.
      if (this.#position !== undefined && follows(this.#position, sent.position)) this.#position = sent.position;
      else void this.check();
    }
    const outcome: PurgeOutcome = { tag, memory, shared: sent?.windows, fleet: store !== undefined };
    log.info({ tag, by, ...memory, sharedWindows: outcome.shared, thisInstanceOnly: sent === undefined }, 'Purged');
    return outcome;
  }

  /** Reads the fleet's log and applies what is new here; checks asked for while one runs make one more after it. */
  check(): Promise<void> {
    if (this.#checking !== undefined) {
      this.#checkAgain = true;
      return this.#checking;
    }
    this.#checking = this.#readLog().finally(() => {
      this.#checking = undefined;
      if (this.#checkAgain && !this.#closed) {
        this.#checkAgain = false;
        void this.check();
      }
    });
    return this.#checking;
  }

  close(): void {
    this.#closed = true;
    this.#cancelNext?.();
  }

  #scheduleCheck(): void {
    if (this.#closed) return;
    this.#cancelNext = (this.#options.alarm ?? systemAlarm)(PURGE_CHECK_INTERVAL_MS, () => {
      void this.check().finally(() => this.#scheduleCheck());
    });
  }

  async #readLog(): Promise<void> {
    const { store, log } = this.#options;
    if (store === undefined || !(await this.#sendPending())) return;
    const since = this.#position;
    const read = await store.purgesSince(since);
    if (read === undefined) return;
    // A purge made here meanwhile may have moved the position on: what it applied is not applied again.
    const applied = this.#position;
    this.#position =
      applied !== undefined && applied.log === read.position.log && applied.sequence > read.position.sequence ? applied : read.position;
    if (since === undefined) {
      if (this.#startedUnaware)
        this.#dropAll('Redis answered for the first time since this instance started; purges made before are unknown here');
      return;
    }
    if ('gap' in read) {
      this.#dropAll('This instance missed more purges than the fleet keeps (or Redis lost them)');
      return;
    }
    const first = read.position.sequence - read.tags.length + 1;
    const tags = read.tags.filter((_, i) => applied?.log !== read.position.log || first + i > applied.sequence);
    // Each tag walks every window and answer held: past a few, once for all of them.
    if (tags.length > MAX_TAGS_APPLIED_ONE_BY_ONE) {
      this.#dropAll(`${tags.length} purges were new here at once`);
      return;
    }
    for (const tag of tags) {
      const dropped = this.#options.caches.purge(tag);
      if (dropped === undefined) log.warn({ tag: tag.slice(0, 200) }, 'Ignored a purge in Redis naming no tag the gateway writes');
      else log.info({ tag, ...dropped }, 'Purge applied');
    }
  }

  #dropAll(why: string): void {
    const dropped = this.#options.caches.purge(ALL_TAG);
    this.#options.log.warn({ ...dropped }, `${why}: dropped every window and answer this instance held`);
  }

  #keepPending(tag: string): void {
    if (this.#pending.includes(ALL_TAG)) return;
    this.#pending = this.#pending.length >= MAX_PENDING_PURGES ? [ALL_TAG] : [...this.#pending, tag];
  }

  /**
   * Sends the purges made while Redis was away, in order; false when Redis is
   * still away. One sending at a time, joined by whoever asks meanwhile (a
   * check and a purge): two would each send the first and drop the other's.
   */
  #sendPending(): Promise<boolean> {
    this.#sending ??= this.#sendEachPending().finally(() => {
      this.#sending = undefined;
    });
    return this.#sending;
  }

  async #sendEachPending(): Promise<boolean> {
    const { store, log, windowKeepMs } = this.#options;
    while (store !== undefined && this.#pending.length > 0) {
      const tag = this.#pending[0]!;
      const sent = await store.purge(tag, windowKeepMs);
      if (sent === undefined) return false;
      this.#pending.shift();
      log.info({ tag, sharedWindows: sent.windows }, 'Purge made while Redis was away sent to the fleet');
    }
    return true;
  }
}

/** Whether `next` is the purge right after `known` in the log: the same log, or the first of a log begun since. */
function follows(known: PurgePosition, next: PurgePosition): boolean {
  return (known.log === next.log || known.log === '') && known.sequence + 1 === next.sequence;
}
