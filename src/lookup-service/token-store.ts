import { randomBytes } from 'node:crypto';

const PRUNE_INTERVAL_MS = 1_000;

/** Issued access tokens and when they expire, on a monotonic clock. */
export class TokenStore {
  private readonly expiresAt = new Map<string, number>();
  private nextPruneAt = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  issue(lifetimeMs: number): string {
    const now = this.now();
    this.pruneExpired(now);
    const token = randomBytes(32).toString('base64url');
    this.expiresAt.set(token, now + lifetimeMs);
    return token;
  }

  isValid(token: string): boolean {
    const expiresAt = this.expiresAt.get(token);
    if (expiresAt === undefined) return false;
    if (this.now() < expiresAt) return true;
    this.expiresAt.delete(token);
    return false;
  }

  validTokens(): string[] {
    const now = this.now();
    return [...this.expiresAt].filter(([, expiresAt]) => now < expiresAt).map(([token]) => token);
  }

  revokeAll(): void {
    this.expiresAt.clear();
  }

  /** Tokens held, expired ones included until the next prune. */
  get size(): number {
    return this.expiresAt.size;
  }

  // Pruning at most once a second bounds memory by the tokens issued within
  // one lifetime plus a second, without a timer that would keep the process alive.
  private pruneExpired(now: number): void {
    if (now < this.nextPruneAt) return;
    this.nextPruneAt = now + PRUNE_INTERVAL_MS;
    for (const [token, expiresAt] of this.expiresAt) {
      if (expiresAt <= now) this.expiresAt.delete(token);
    }
  }
}
