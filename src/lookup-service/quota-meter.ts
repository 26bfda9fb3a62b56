export interface Quota {
  /** Requests (token and search together) answered normally within one window; the rest get 429. */
  limit: number;
  windowMs: number;
}

/** Counts requests in fixed windows that start with the first request after the previous window ended. */
export class QuotaMeter {
  private windowStartedAt = 0;
  private requestsInWindow = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Records a request; false when it is over the quota. */
  admit(quota: Quota | undefined): boolean {
    if (quota === undefined) return true;
    const now = this.now();
    if (this.requestsInWindow === 0 || now - this.windowStartedAt >= quota.windowMs) {
      this.windowStartedAt = now;
      this.requestsInWindow = 0;
    }
    this.requestsInWindow += 1;
    return this.requestsInWindow <= quota.limit;
  }

  reset(): void {
    this.requestsInWindow = 0;
  }
}
