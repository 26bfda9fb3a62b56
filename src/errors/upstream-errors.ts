import { ClientError } from './client-error.js';

/**
 * One class per kind of upstream failure, each with a stable `code` that the
 * gateway exposes as `extensions.code`. The message, which clients read, says
 * what happened and what to do, and is the same for every failure of a kind:
 * it never names an upstream URL, path, status or library code, nor carries
 * the client secret, the service token or an upstream body. Those details, for
 * operators, are in `detail`, which goes to the log only.
 */
export type UpstreamErrorCode =
  | 'UPSTREAM_AUTH_FAILED'
  | 'UPSTREAM_RATE_LIMITED'
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_BAD_RESPONSE'
  | 'UPSTREAM_REJECTED_QUERY';

export abstract class UpstreamError extends ClientError {
  abstract override readonly code: UpstreamErrorCode;
  /** What failed where, e.g. `timed out on POST /v1/oauth/token (UND_ERR_HEADERS_TIMEOUT)`: for the log, never for clients. */
  readonly detail: string;

  constructor(message: string, detail: string, options?: ErrorOptions) {
    super(message, options);
    this.detail = detail;
  }
}

/** The token endpoint refused the client credentials, or search refused a token just issued. */
export class UpstreamAuthError extends UpstreamError {
  readonly code = 'UPSTREAM_AUTH_FAILED';

  constructor(detail: string) {
    super(
      "The company lookup service refused the gateway's credentials; trying again will not help until the gateway's operator has checked them.",
      detail,
    );
  }
}

export interface RetryAfterOptions extends ErrorOptions {
  /** How long the upstream asked callers to wait, from its Retry-After header. */
  retryAfterMs?: number | undefined;
}

/** A failure that may pass: the upstream may say, with Retry-After, when to come back. */
export abstract class UpstreamTransientError extends UpstreamError {
  readonly retryAfterMs: number | undefined;

  constructor(message: string, detail: string, options: RetryAfterOptions = {}) {
    super(message, detail, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The upstream answered 429: this partner is over its quota. */
export class UpstreamRateLimitedError extends UpstreamTransientError {
  readonly code = 'UPSTREAM_RATE_LIMITED';

  constructor(
    detail: string,
    options?: RetryAfterOptions,
    message = 'The company lookup service is limiting how often the gateway may call it; try again shortly.',
  ) {
    super(message, detail, options);
  }
}

/** The upstream answered 5xx, or no connection could be made or kept. */
export class UpstreamUnavailableError extends UpstreamTransientError {
  readonly code = 'UPSTREAM_UNAVAILABLE';

  constructor(detail: string, options?: RetryAfterOptions, message = 'The company lookup service is unavailable; try again shortly.') {
    super(message, detail, options);
  }
}

/** `waitMs` as clients read it: whole seconds, at least 1. */
function seconds(waitMs: number): string {
  const whole = Math.max(1, Math.ceil(waitMs / 1_000));
  return `${whole} s`;
}

/**
 * The gateway holds calls back after a run of upstream failures: to clients it
 * is the upstream being unavailable, but it is never retried, as no call was made.
 */
export class UpstreamCircuitOpenError extends UpstreamUnavailableError {
  constructor(detail: string, waitMs: number) {
    super(
      detail,
      {},
      `The company lookup service keeps failing, so the gateway is not calling it for the next ${seconds(waitMs)}; try again then.`,
    );
  }
}

/**
 * The gateway holds calls back after a run of 429s: to clients it is the
 * upstream's rate limit, but it is never retried, as no call was made.
 */
export class UpstreamRateLimitHoldError extends UpstreamRateLimitedError {
  constructor(detail: string, waitMs: number) {
    super(
      detail,
      {},
      `The company lookup service is limiting how often the gateway may call it, so the gateway is not calling it for the next ${seconds(waitMs)}; try again then.`,
    );
  }
}

/**
 * The fleet's budget of upstream calls (UPSTREAM_MAX_CALLS_PER_MINUTE) is
 * spent for now: to clients it is the upstream's rate limit, the partner
 * agreement's, but no call was made and none is retried.
 */
export class UpstreamBudgetSpentError extends UpstreamRateLimitedError {
  constructor(detail: string, waitMs: number) {
    super(
      detail,
      {},
      `The gateway has made as many calls to the company lookup service as it may for now; try again in ${seconds(waitMs)}.`,
    );
  }
}

/** Whether the gateway answered for the upstream without calling it. */
export function isHeldBack(error: unknown): boolean {
  return (
    error instanceof UpstreamCircuitOpenError || error instanceof UpstreamRateLimitHoldError || error instanceof UpstreamBudgetSpentError
  );
}

/**
 * Connecting, waiting for headers or reading the body took too long, or no
 * answer came within the request's deadline.
 */
export class UpstreamTimeoutError extends UpstreamError {
  readonly code = 'UPSTREAM_TIMEOUT';

  constructor(detail: string, options?: ErrorOptions) {
    super('The company lookup service did not answer in time; try again shortly.', detail, options);
  }
}

/** The upstream answered with a body that is not JSON or not of the documented shape. */
export class UpstreamBadResponseError extends UpstreamError {
  readonly code = 'UPSTREAM_BAD_RESPONSE';

  constructor(detail: string, options?: ErrorOptions) {
    super('The company lookup service sent an answer the gateway cannot read; try again later.', detail, options);
  }
}

/**
 * The upstream answered 400 to a search the gateway considered valid. Not
 * transient: the same search will be refused again.
 */
export class UpstreamRejectedQueryError extends UpstreamError {
  readonly code = 'UPSTREAM_REJECTED_QUERY';

  constructor(detail: string) {
    super('The company lookup service refused this search; change the search rather than repeating it.', detail);
  }
}
