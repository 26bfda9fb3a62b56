import type { UpstreamLog } from '../upstream/log.js';
import type { RedisRefusal } from './redis-refusals.js';

/** While Redis is taken to be away, or refuses the gateway, it is asked this often whether it serves again. */
export const PROBE_INTERVAL_MS = 500;

/** Redis is taken to be away after answering no call within its deadline for this many deadlines ... */
const AWAY_AFTER_DEADLINES = 4;
/** ... and never sooner than this: a busy host stalls a process, or Redis, for hundreds of milliseconds now and then. */
const MIN_AWAY_AFTER_MS = 1_000;

/** Whether this instance shares through Redis now, and if not, why. */
export type SharingState =
  /** Before Redis first answered, and while it is taken to be away: down, hung, late, restarting or failing over. */
  | { state: 'unavailable' }
  /** Redis answers, and refuses what sharing needs: a setting to change. */
  | { state: 'refused'; refusal: RedisRefusal }
  | { state: 'sharing' };

export interface RedisHealthOptions {
  log: UpstreamLog;
  /** The deadline of every call. */
  commandTimeoutMs: number;
  /** Whether Redis serves the gateway now: every call it needs answered in time (a refusal met is reported by the caller). */
  probe: () => Promise<boolean>;
  /** Redis found to serve, the first time or again. */
  onSharing?: (() => void) | undefined;
  /** Told once the state is first known: Redis served the gateway (sharing), or refused it. */
  known?: (() => void) | undefined;
}

/**
 * Whether the gateway shares through Redis now. One late answer is not an
 * outage: on a busy host a process, or Redis itself, is now and then not run
 * for longer than a deadline, and an instance that went on alone at each such
 * moment would call the upstream for what the fleet already has. Redis is
 * taken to be away on evidence: a lost connection (a fact at once), or no
 * call answered within its deadline for a window of several deadlines (at
 * least MIN_AWAY_AFTER_MS) while calls were made. Answers that come, but late,
 * do not count: a Redis that is always late would make every request wait
 * for it. From then on no call is made (a hung or slow server would cost
 * every request its deadline) until a probe, run every PROBE_INTERVAL_MS and
 * whenever the client says it has connected, finds every call the gateway
 * needs answered in time. A Redis that answers and refuses (a missing
 * permission, a read-only replica, the wrong topology) is a setting to
 * change: it is said once with its cause, and probed the same way. Each
 * outage or refusal is logged once, and its end once; "sharing" is said only
 * once a probe has shown it.
 */
export class RedisHealth {
  readonly #options: RedisHealthOptions;
  readonly #awayAfterMs: number;
  #state: SharingState = { state: 'unavailable' };
  /** Whether sharing has ever been shown: the first time it is "connected", after that "back". */
  #shared = false;
  /** When the period not sharing being logged began; undefined while none is. */
  #loggedSince: number | undefined;
  /** When the first call was sent that missed its deadline with none answered in time since; undefined after an answer in time. */
  #missingSince: number | undefined;
  #probe: NodeJS.Timeout | undefined;
  #probing = false;
  /** A probe asked for while one runs: its answer may predate what prompted the ask. */
  #probeAgain = false;
  #stopped = false;

  constructor(options: RedisHealthOptions) {
    this.#options = options;
    this.#awayAfterMs = Math.max(MIN_AWAY_AFTER_MS, AWAY_AFTER_DEADLINES * options.commandTimeoutMs);
  }

  get sharing(): boolean {
    return this.#state.state === 'sharing';
  }

  get state(): SharingState {
    return this.#state;
  }

  /** A call answered within its deadline. */
  answered(): void {
    this.#missingSince = undefined;
  }

  /** A call sent at `sentAt` (performance.now()) had no answer within its deadline: away once the misses span the window. */
  missed(sentAt: number): void {
    if (!this.sharing) return;
    this.#missingSince ??= sentAt;
    const missingMs = performance.now() - this.#missingSince;
    if (missingMs >= this.#awayAfterMs) {
      this.down(new Error(`Redis answered no call within ${this.#options.commandTimeoutMs} ms for ${Math.round(missingMs)} ms`));
    }
  }

  /** Redis is away: a lost connection, or the misses above. A refusal already said stands until a probe passes. */
  down(error: unknown): void {
    if (this.#stopped) return;
    this.#missingSince = undefined;
    if (this.#state.state !== 'refused') this.#state = { state: 'unavailable' };
    if (this.#loggedSince === undefined) {
      this.#loggedSince = Date.now();
      this.#options.log.warn(
        { detail: error instanceof Error ? error.message : String(error) },
        'Redis unavailable; this instance goes on alone (own token, cache and rate limits) until it is back',
      );
    }
    this.#scheduleProbe();
  }

  /** Redis answers, and refuses what sharing needs: said once per cause, with the setting to change. */
  refused(refusal: RedisRefusal, reply: string): void {
    if (this.#stopped) return;
    this.#missingSince = undefined;
    const known = this.#state.state === 'refused' && this.#state.refusal.cause === refusal.cause;
    this.#state = { state: 'refused', refusal };
    this.#loggedSince ??= Date.now();
    this.#options.known?.();
    if (!known) {
      this.#options.log.warn(
        { cause: refusal.cause, setting: refusal.setting, fix: refusal.fix, reply: reply.slice(0, 200) },
        `Redis refuses what sharing needs (${refusal.cause}); this instance goes on alone (own token, cache and rate limits) until ${refusal.setting} is changed`,
      );
    }
    this.#scheduleProbe();
  }

  /** The client says it has connected, or found a new topology: probed now rather than at the next interval. */
  connected(): void {
    if (this.#stopped || this.sharing) return;
    clearTimeout(this.#probe);
    this.#probe = undefined;
    this.#runProbe();
  }

  stop(): void {
    this.#stopped = true;
    this.#state = { state: 'unavailable' };
    clearTimeout(this.#probe);
  }

  #up(): void {
    if (this.sharing || this.#stopped) return;
    this.#state = { state: 'sharing' };
    this.#missingSince = undefined;
    this.#options.known?.();
    if (!this.#shared) {
      this.#shared = true;
      this.#loggedSince = undefined;
      this.#options.log.info({}, 'Redis connected; sharing the upstream state with the other instances');
    } else {
      this.#options.log.info(
        { outageMs: Date.now() - (this.#loggedSince ?? Date.now()) },
        'Redis is back; sharing the upstream state again',
      );
      this.#loggedSince = undefined;
    }
    this.#options.onSharing?.();
  }

  #runProbe(): void {
    if (this.#probing) {
      this.#probeAgain = true;
      return;
    }
    this.#probing = true;
    void this.#options.probe().then((verdict) => {
      this.#probing = false;
      if (this.#stopped || this.sharing) return;
      if (verdict) {
        this.#probeAgain = false;
        return this.#up();
      }
      if (this.#probeAgain) {
        this.#probeAgain = false;
        return this.#runProbe();
      }
      this.#scheduleProbe();
    });
  }

  #scheduleProbe(): void {
    if (this.#probe !== undefined || this.#stopped) return;
    this.#probe = setTimeout(() => {
      this.#probe = undefined;
      this.#runProbe();
    }, PROBE_INTERVAL_MS);
    this.#probe.unref();
  }
}
