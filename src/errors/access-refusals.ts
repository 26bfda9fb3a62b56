import { Refusal } from './refusal.js';

/** Seconds a client is asked to wait when bearer tokens cannot be checked. */
export const AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** No credential, or one not accepted; `message` says which and what to send instead. */
export class UnauthenticatedError extends Refusal {
  readonly code = 'UNAUTHENTICATED';

  /** `challenge`: the WWW-Authenticate header, naming the schemes accepted. */
  constructor(message: string, challenge: string) {
    super(message, { headers: { 'www-authenticate': challenge } });
  }
}

/** The keys to check bearer tokens with could not be had; not the client's fault. */
export class AuthUnavailableError extends Refusal {
  readonly code = 'AUTH_UNAVAILABLE';
  /** What failed, for the log only. */
  readonly detail: string;

  constructor(detail: string) {
    super('Bearer tokens cannot be checked right now; try again shortly', {
      headers: { 'retry-after': String(AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS) },
    });
    this.detail = detail;
  }
}

/** The client has used up its rate limit for now. */
export class RateLimitedError extends Refusal {
  readonly code = 'RATE_LIMITED';

  constructor(retryAfterSeconds: number) {
    super(`Too many requests; try again in ${retryAfterSeconds} s`, { headers: { 'retry-after': String(retryAfterSeconds) } });
  }
}
