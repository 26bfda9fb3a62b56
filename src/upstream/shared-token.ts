import { setTimeout as pause } from 'node:timers/promises';
import type { Clock } from './resilience/clock.js';
import type { HeldLock, SharedStore } from './shared-store.js';
import { isSendableToken } from './token-response.js';

/** The fleet's service token, as kept in the shared store: `raw` is the stored text, for a compare-and-delete. */
export interface ServiceToken {
  value: string;
  refreshAt: number;
  expiresAt: number;
  raw?: string | undefined;
}

const TOKEN_KEY = 'token';
const LOCK_KEY = 'token:lock';
const REFUSED_KEY = 'token:refused';
/** How often an instance waiting for another's renewal looks for its token. */
export const TOKEN_POLL_MS = 10;

/** What an instance that asked for the renewal lock learnt. */
export type Renewal =
  /** It holds the lock: it asks the upstream, publishes the token and releases the lock. */
  | { outcome: 'mine'; lock: HeldLock }
  /** Another instance renewed meanwhile: its token. */
  | { outcome: 'renewed'; token: ServiceToken }
  /** Nobody could be waited for (store away, or the holder gave up): the instance asks the upstream itself. */
  | { outcome: 'alone' };

/**
 * The service token shared by a fleet: one instance renews it under a lock,
 * the others wait for its token (within their own deadline) instead of asking
 * the upstream. The refused-credentials cool-down is shared too.
 */
export class SharedToken {
  readonly #store: SharedStore;
  readonly #clock: Clock;

  constructor(store: SharedStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** The fleet's token if it is usable now and none of `refused`; undefined otherwise, or when the store cannot answer. */
  async current(refused: readonly string[]): Promise<ServiceToken | undefined> {
    const raw = await this.#store.get(TOKEN_KEY);
    const token = raw === undefined ? undefined : parseToken(raw);
    if (token === undefined || refused.includes(token.value) || this.#clock() >= token.expiresAt) return undefined;
    return token;
  }

  /**
   * Takes the renewal lock, or waits until its holder has published a token
   * that needs no renewal yet, its lock has gone, or `waitUntil` (real time).
   */
  async renew(refused: readonly string[], lockMs: number, waitUntil: number): Promise<Renewal> {
    const attempt = await this.#store.lock(LOCK_KEY, lockMs);
    if (attempt.outcome === 'taken') {
      // Another instance may have published between the caller's read and this lock.
      const token = await this.current(refused);
      if (token !== undefined && this.#clock() < token.refreshAt) {
        await this.#store.unlock(attempt.lock);
        return { outcome: 'renewed', token };
      }
      return { outcome: 'mine', lock: attempt.lock };
    }
    if (attempt.outcome === 'unavailable') return { outcome: 'alone' };
    while (Date.now() < waitUntil) {
      await pause(TOKEN_POLL_MS);
      const token = await this.current(refused);
      if (token !== undefined && this.#clock() < token.refreshAt) return { outcome: 'renewed', token };
      if ((await this.#store.locked(LOCK_KEY)) !== true) {
        // Released, expired or unreadable: whatever the holder published was read just before.
        const last = await this.current(refused);
        return last !== undefined && this.#clock() < last.refreshAt ? { outcome: 'renewed', token: last } : { outcome: 'alone' };
      }
    }
    return { outcome: 'alone' };
  }

  /** Publishes a token the upstream has just issued, for as long as it lives, and releases the lock if this instance held it. */
  async publish(token: ServiceToken, lock: HeldLock | undefined): Promise<ServiceToken> {
    const raw = JSON.stringify({ value: token.value, refreshAt: token.refreshAt, expiresAt: token.expiresAt });
    const ttlMs = token.expiresAt - this.#clock();
    if (ttlMs > 0) await this.#store.set(TOKEN_KEY, raw, ttlMs);
    if (lock !== undefined) await this.#store.unlock(lock);
    return { ...token, raw };
  }

  /** Releases the lock after a failed renewal, so the others stop waiting for it. */
  async abandon(lock: HeldLock): Promise<void> {
    await this.#store.unlock(lock);
  }

  /** Drops the fleet's token after the upstream refused it, only if it is still that one (an instance may have renewed it already). */
  async drop(token: ServiceToken): Promise<void> {
    if (token.raw !== undefined) await this.#store.deleteIf(TOKEN_KEY, token.raw);
  }

  /** Holds every instance back from offering refused credentials again for `cooldownMs`. */
  async refuse(cooldownMs: number): Promise<void> {
    if (cooldownMs > 0) await this.#store.set(REFUSED_KEY, '1', cooldownMs);
  }

  /** Whether another instance saw the credentials refused within the cool-down. */
  async refused(): Promise<boolean> {
    return (await this.#store.get(REFUSED_KEY)) !== undefined;
  }
}

/** A stored token read like an upstream answer: anything but the expected shape is no token. */
function parseToken(raw: string): ServiceToken | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { value, refreshAt, expiresAt } = parsed as Record<string, unknown>;
  // Held to what is taken from the upstream: a value that cannot be sent fails every search before any 401 could drop it.
  if (typeof value !== 'string' || !isSendableToken(value)) return undefined;
  if (!Number.isFinite(refreshAt) || !Number.isFinite(expiresAt)) return undefined;
  return { value, refreshAt: refreshAt as number, expiresAt: expiresAt as number, raw };
}
