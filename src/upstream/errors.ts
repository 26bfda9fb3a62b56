/**
 * One class per kind of upstream failure, each with a stable `code` that the
 * gateway exposes as `extensions.code`. Messages say what failed and where, and
 * never carry the client secret, the service token or a raw upstream body.
 */
export type UpstreamErrorCode =
  | 'UPSTREAM_AUTH_FAILED'
  | 'UPSTREAM_RATE_LIMITED'
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_BAD_RESPONSE'
  | 'UPSTREAM_REJECTED_QUERY';

export abstract class UpstreamError extends Error {
  abstract readonly code: UpstreamErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /** GraphQL servers copy a thrown error's `extensions` into the error they report, so clients get the code. */
  get extensions(): { code: UpstreamErrorCode } {
    return { code: this.code };
  }
}

/** The token endpoint refused the client credentials. */
export class UpstreamAuthError extends UpstreamError {
  readonly code = 'UPSTREAM_AUTH_FAILED';
}

export interface RetryAfterOptions extends ErrorOptions {
  /** How long the upstream asked callers to wait, from its Retry-After header. */
  retryAfterMs?: number | undefined;
}

/** A failure that may pass: the upstream may say, with Retry-After, when to come back. */
export abstract class UpstreamTransientError extends UpstreamError {
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: RetryAfterOptions = {}) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The upstream answered 429: this partner is over its quota. */
export class UpstreamRateLimitedError extends UpstreamTransientError {
  readonly code = 'UPSTREAM_RATE_LIMITED';
}

/** The upstream answered 5xx, or no connection could be made or kept. */
export class UpstreamUnavailableError extends UpstreamTransientError {
  readonly code = 'UPSTREAM_UNAVAILABLE';
}

/**
 * The gateway holds calls back after a run of upstream failures: to clients it
 * is the upstream being unavailable, but it is never retried, as no call was made.
 */
export class UpstreamCircuitOpenError extends UpstreamUnavailableError {}

/**
 * The gateway holds calls back after a run of 429s: to clients it is the
 * upstream's rate limit, but it is never retried, as no call was made.
 */
export class UpstreamRateLimitHoldError extends UpstreamRateLimitedError {}

/** Whether the gateway answered for the upstream without calling it. */
export function isHeldBack(error: unknown): boolean {
  return error instanceof UpstreamCircuitOpenError || error instanceof UpstreamRateLimitHoldError;
}

/**
 * Connecting, waiting for headers or reading the body took too long, or no
 * answer came within the request's deadline.
 */
export class UpstreamTimeoutError extends UpstreamError {
  readonly code = 'UPSTREAM_TIMEOUT';
}

/** The upstream answered with a body that is not JSON or not of the documented shape. */
export class UpstreamBadResponseError extends UpstreamError {
  readonly code = 'UPSTREAM_BAD_RESPONSE';
}

/**
 * The upstream answered 400 to a search the gateway considered valid. Not
 * transient: the same search will be refused again.
 */
export class UpstreamRejectedQueryError extends UpstreamError {
  readonly code = 'UPSTREAM_REJECTED_QUERY';
}

/** The error for a status that the endpoint's own handling does not expect. */
export function errorForStatus(status: number, where: string, retryAfterMs?: number): UpstreamError {
  if (status === 429) {
    return new UpstreamRateLimitedError(`Company lookup service rate-limited ${where} (429)`, { retryAfterMs });
  }
  if (status >= 500) {
    return new UpstreamUnavailableError(`Company lookup service failed on ${where} (${status})`, { retryAfterMs });
  }
  return new UpstreamBadResponseError(`Company lookup service answered ${where} with unexpected status ${status}`);
}
