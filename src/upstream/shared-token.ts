import { randomUUID } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import type { Clock } from './resilience/clock.js';
import type { SharedStore } from './shared-store.js';
import { isSendableToken } from './token-response.js';

/** The service token: when to renew it and when it expires, by this instance's clock. */
export interface ServiceToken {
  value: string;
  refreshAt: number;
  expiresAt: number;
  /**
   * Set on a token this instance received from the token endpoint itself: the how-many-th. A search refusing such a
   * token received since it began is the upstream refusing what it has just issued; one read from the store, or an
   * older one, may simply have been revoked.
   */
  issued?: number | undefined;
}

/** How often an instance waiting for another's renewal asks again. */
export const TOKEN_POLL_MS = 10;

/** What an instance that needs a token learnt from the fleet. */
export type Obtained =
  /** The fleet's token, needing no renewal yet. */
  | { outcome: 'token'; token: ServiceToken }
  /** Another instance saw the credentials refused within the cool-down. */
  | { outcome: 'refused' }
  /** This instance renews: it holds the lock (`mine`), or nobody could be waited for (`alone`); it publishes with `lockId`. */
  | { outcome: 'mine' | 'alone'; lockId: string };

/**
 * The service token shared by a fleet: one instance renews it under a lock,
 * the others wait for its token (within their own deadline) instead of asking
 * the upstream. The refused-credentials cool-down is shared too. Each ask is
 * one round trip (SharedStore.claimToken), judged on the store's clock.
 */
export class SharedToken {
  readonly #store: SharedStore;
  readonly #clock: Clock;

  constructor(store: SharedStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /**
   * The fleet's token if it needs no renewal and is none of `skip`, or this
   * instance's turn to renew it. While another holds the lock (or an answer is
   * late: no outage), asks again until `waitUntil` (real time), then renews alone.
   */
  async obtain(skip: readonly string[], lockMs: number, waitUntil: number): Promise<Obtained> {
    const lockId = randomUUID();
    let skipped = skip;
    for (;;) {
      const claim = await this.#store.claimToken({ lockId, lockMs, skip: skipped });
      switch (claim.outcome) {
        case 'token': {
          const { value, refreshInMs, expiresInMs } = claim.token;
          // Held to what is taken from the upstream: a value that cannot be sent fails every search before any 401
          // could drop it. Asked again without it, the claim takes the lock, and the renewal replaces it.
          if (!isSendableToken(value)) {
            skipped = [...skipped, value];
            continue;
          }
          const now = this.#clock();
          return { outcome: 'token', token: { value, refreshAt: now + refreshInMs, expiresAt: now + expiresInMs } };
        }
        case 'refused':
          return claim;
        case 'taken':
          return { outcome: 'mine', lockId };
        case 'unavailable':
          return { outcome: 'alone', lockId };
        case 'held':
        case 'missed':
          if (Date.now() >= waitUntil) return { outcome: 'alone', lockId };
          await pause(TOKEN_POLL_MS);
      }
    }
  }

  /** Publishes a token the upstream has just issued, for as long as it lives, releasing `lockId`'s lock. */
  async publish(token: ServiceToken, lockId: string): Promise<void> {
    const now = this.#clock();
    await this.#store.publishToken({ value: token.value, refreshInMs: token.refreshAt - now, expiresInMs: token.expiresAt - now }, lockId);
  }

  /** Releases the lock after a failed renewal, so the others stop waiting for it. */
  async abandon(lockId: string): Promise<void> {
    await this.#store.releaseToken(lockId);
  }

  /** Drops the fleet's token after the upstream refused it, only if it is still that one (an instance may have renewed it already). */
  async drop(value: string): Promise<void> {
    await this.#store.dropToken(value);
  }

  /** Holds every instance back from offering refused credentials again for `cooldownMs`. */
  async refuse(cooldownMs: number): Promise<void> {
    await this.#store.refuseCredentials(cooldownMs);
  }
}
