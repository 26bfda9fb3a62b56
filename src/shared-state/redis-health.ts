import type { UpstreamLog } from '../upstream/log.js';

/** While Redis is taken to be away, it is asked this often whether it is back. */
export const PROBE_INTERVAL_MS = 500;

/** Redis is taken to be away after answering no call within its deadline for this many deadlines ... */
export const AWAY_AFTER_DEADLINES = 4;
/** ... and never sooner than this: a busy host stalls a process, or Redis, for hundreds of milliseconds now and then. */
export const MIN_AWAY_AFTER_MS = 1_000;

export interface RedisHealthOptions {
  log: UpstreamLog;
  /** The deadline of every call. */
  commandTimeoutMs: number;
  /** One PING under the store's deadline: whether Redis answered it in time. */
  ping: () => Promise<boolean>;
  /** Whether the client holds a connection it has set up. */
  ready: () => boolean;
}

/**
 * Whether the gateway shares through Redis now. One late answer is not an
 * outage: on a busy host a process, or Redis itself, is now and then not run
 * for longer than a deadline, and an instance that went on alone at each such
 * moment would call the upstream for what the fleet already has. Redis is
 * taken to be away on evidence: a failed connection (a fact at once), or no
 * call answered within its deadline for a window of several deadlines (at
 * least MIN_AWAY_AFTER_MS) while calls were made. A late answer that comes
 * within that window resets it too: many calls queued at once on a busy host
 * are all answered late, by a Redis that is there. From then on no call is made
 * (a hung server would cost every request its deadline) until a probe answered
 * in time, or the client's own reconnection, finds it back. An outage is
 * logged once, and its end once.
 */
export class RedisHealth {
  readonly #options: RedisHealthOptions;
  readonly #awayAfterMs: number;
  #sharing = false;
  /** When the outage being logged began; undefined while none is. */
  #outageSince: number | undefined;
  /** When the first call was sent that missed its deadline with none answered in time since; undefined after an answer in time. */
  #missingSince: number | undefined;
  #probe: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: RedisHealthOptions) {
    this.#options = options;
    this.#awayAfterMs = Math.max(MIN_AWAY_AFTER_MS, AWAY_AFTER_DEADLINES * options.commandTimeoutMs);
  }

  get sharing(): boolean {
    return this.#sharing;
  }

  /** How long Redis may answer nothing in time before it is taken to be away. */
  get awayAfterMs(): number {
    return this.#awayAfterMs;
  }

  /** A call answered within its deadline, or late but within the window of misses that would make Redis away. */
  answered(): void {
    this.#missingSince = undefined;
  }

  /** A call sent at `sentAt` (performance.now()) had no answer within its deadline: away once the misses span the window. */
  missed(sentAt: number): void {
    if (!this.#sharing) return;
    this.#missingSince ??= sentAt;
    const missingMs = performance.now() - this.#missingSince;
    if (missingMs >= this.#awayAfterMs) {
      this.down(new Error(`Redis answered no call within ${this.#options.commandTimeoutMs} ms for ${Math.round(missingMs)} ms`));
    }
  }

  up(): void {
    if (this.#sharing || this.#stopped) return;
    this.#sharing = true;
    this.#missingSince = undefined;
    clearTimeout(this.#probe);
    this.#probe = undefined;
    if (this.#outageSince === undefined) {
      this.#options.log.info({}, 'Redis connected; sharing the upstream state with the other instances');
    } else {
      this.#options.log.info({ outageMs: Date.now() - this.#outageSince }, 'Redis is back; sharing the upstream state again');
      this.#outageSince = undefined;
    }
  }

  /** Redis is away: a failed connection, or the misses above. */
  down(error: unknown): void {
    if (this.#stopped) return;
    this.#sharing = false;
    this.#missingSince = undefined;
    if (this.#outageSince === undefined) {
      this.#outageSince = Date.now();
      this.#options.log.warn(
        { detail: error instanceof Error ? error.message : String(error) },
        'Redis unavailable; this instance goes on alone (own token, cache and rate limits) until it is back',
      );
    }
    this.#scheduleProbe();
  }

  stop(): void {
    this.#stopped = true;
    this.#sharing = false;
    clearTimeout(this.#probe);
  }

  #scheduleProbe(): void {
    if (this.#probe !== undefined) return;
    this.#probe = setTimeout(() => {
      this.#probe = undefined;
      // A client still reconnecting says so with its 'ready' event.
      if (!this.#options.ready()) return this.#scheduleProbe();
      void this.#options.ping().then((answered) => (answered ? this.up() : this.#scheduleProbe()));
    }, PROBE_INTERVAL_MS);
    this.#probe.unref();
  }
}
