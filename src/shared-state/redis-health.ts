import type { UpstreamLog } from '../upstream/log.js';

/** While Redis is taken to be away, it is asked this often whether it is back. */
export const PROBE_INTERVAL_MS = 500;

export interface RedisHealthOptions {
  log: UpstreamLog;
  /** One PING under the store's deadline: whether Redis answered. */
  ping: () => Promise<boolean>;
  /** Whether the client holds a connection it has set up. */
  ready: () => boolean;
}

/**
 * Whether the gateway shares through Redis now. One failed or late call takes
 * Redis to be away: from then on no call is made (a hung server would cost
 * every request the whole deadline) until a probe, or the client's own
 * reconnection, finds it back. An outage is logged once, and its end once.
 */
export class RedisHealth {
  readonly #options: RedisHealthOptions;
  #sharing = false;
  /** When the outage being logged began; undefined while none is. */
  #outageSince: number | undefined;
  #probe: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: RedisHealthOptions) {
    this.#options = options;
  }

  get sharing(): boolean {
    return this.#sharing;
  }

  up(): void {
    if (this.#sharing || this.#stopped) return;
    this.#sharing = true;
    clearTimeout(this.#probe);
    this.#probe = undefined;
    if (this.#outageSince === undefined) {
      this.#options.log.info({}, 'Redis connected; sharing the upstream state with the other instances');
    } else {
      this.#options.log.info({ outageMs: Date.now() - this.#outageSince }, 'Redis is back; sharing the upstream state again');
      this.#outageSince = undefined;
    }
  }

  down(error: unknown): void {
    if (this.#stopped) return;
    this.#sharing = false;
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
