import { UpstreamAuthError, UpstreamTransientError } from '../errors/upstream-errors.js';
import { errorForStatus } from './status-error.js';
import { reportFailure, type UpstreamLog } from './log.js';
import { NO_UPSTREAM_OBSERVER, type TokenRenewalTrigger, type TokenStatus, type UpstreamObserver } from './observer.js';
import { systemClock, type Clock } from './resilience/clock.js';
import { exponentialDelay, FailureBackoff } from './resilience/failure-backoff.js';
import { type ClientCredentials, TOKEN_ENDPOINT, tokenRequestFields } from './token-request.js';
import { readTokenResponse } from './token-response.js';
import type { UpstreamHttp, UpstreamResponse } from './upstream-http.js';
import type { SharedStore } from './shared-store.js';
import { type ServiceToken, SharedToken } from './shared-token.js';

/** A token is renewed this share of its lifetime before it expires ... */
export const REFRESH_MARGIN_SHARE = 0.1;
/** ... but never earlier than this before it expires. */
export const MAX_REFRESH_MARGIN_MS = 60_000;
/** After a failed token request, the next waits this long, doubling with each failure in a row ... */
export const TOKEN_BACKOFF_BASE_MS = 1_000;
/** ... up to this: a failing token endpoint is asked a few times a minute, never once per search. */
export const TOKEN_BACKOFF_MAX_MS = 30_000;
const RECENT_TOKENS_KEPT = 3;
/** Refusals of the client credentials: by the token endpoint itself, or another instance's (the fleet's cool-down, not shared again). */
const endpointRefusals = new WeakSet<UpstreamAuthError>();
const fleetRefusals = new WeakSet<UpstreamAuthError>();

/** Whether `error` is the credentials refused (the token endpoint's 400 or 401), here or in the fleet: the cool-down holds. */
function refusesCredentials(error: unknown): boolean {
  return error instanceof UpstreamAuthError && (endpointRefusals.has(error) || fleetRefusals.has(error));
}

/** How long a token is used, whatever `expires_in` says: the upstream does not decide how often the gateway asks. */
export interface TokenLifetime {
  /** When the answer has no usable `expires_in`; a 401 from search renews the token sooner. */
  defaultMs: number;
  /** A shorter `expires_in` is read as this, so a tiny one cannot make every search renew the token. */
  minMs: number;
  /** A longer `expires_in` is read as this, so a huge one cannot keep a token for ever. */
  maxMs: number;
}

export interface TokenManagerOptions {
  credentials: ClientCredentials;
  /** How long one token request may take. */
  callTimeoutMs: number;
  /** After the upstream refuses the credentials, how long before they are offered again. */
  refusedCooldownMs: number;
  lifetime: TokenLifetime;
  log: UpstreamLog;
  clock?: Clock | undefined;
  /** Shares the token, its renewal and the refused-credentials cool-down with the other instances of a fleet. */
  shared?: SharedStore | undefined;
  observer?: UpstreamObserver | undefined;
}

/**
 * Holds the gateway's ONE service token. Token requests count against the
 * upstream's rate limit, so every caller shares the current token, at most
 * one token request is in flight at a time, and after any failure (refused
 * credentials, an error, a timeout, an answer that cannot be used) no new one
 * starts until a backoff has passed.
 */
export class TokenManager {
  readonly #http: UpstreamHttp;
  readonly #options: TokenManagerOptions;
  readonly #clock: Clock;
  /** Holds every kind of failure, an unexpected error too: none may turn into a token request per search. */
  readonly #backoff: FailureBackoff<unknown>;
  #token: ServiceToken | undefined;
  #pending: Promise<ServiceToken> | undefined;
  /** Whether the token was dropped after a search was answered 401 with it. */
  #dropped = false;
  /** How many tokens this instance has received from the token endpoint itself. */
  #issued = 0;
  /** The last failure to get a token, until a token is had again: what a probe reports. */
  #lastFailure: unknown;
  /** The last few tokens issued: one may still be in flight after a renewal. */
  readonly #recentTokens: string[] = [];
  /** The last few tokens the upstream refused: never taken from the fleet again, whatever the store still says. */
  readonly #refusedTokens: string[] = [];
  readonly #shared: SharedToken | undefined;

  constructor(http: UpstreamHttp, options: TokenManagerOptions) {
    this.#http = http;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#backoff = new FailureBackoff((error, failures) => this.#backoffMs(error, failures), this.#clock);
    this.#shared = options.shared && new SharedToken(options.shared, this.#clock);
  }

  /**
   * The current token. Past its refresh point a still-valid token is returned
   * at once while a renewal runs in the background; only an expired or
   * missing token makes the caller wait. While the backoff holds, a caller
   * that needs a new token gets the failure that started it, at once.
   */
  async getToken(): Promise<string> {
    return (await this.current()).value;
  }

  /** The current token as getToken() gives it, with where it came from (see ServiceToken.issued). */
  async current(): Promise<ServiceToken> {
    const token = this.#token;
    const now = this.#clock();
    if (token && now < token.expiresAt) {
      if (now >= token.refreshAt) this.#renewEarly();
      return token;
    }
    return this.#renew(token ? 'expired' : this.#dropped ? 'refused' : 'initial');
  }

  /** How many tokens this instance has received from the token endpoint so far: a token whose `issued` is above it came later. */
  get issued(): number {
    return this.#issued;
  }

  /** What a probe reports of the token, by the clock: whether one is held, and why not. */
  status(): TokenStatus {
    const token = this.#token;
    const expiresAt = token?.expiresAt;
    if (token && this.#clock() < token.expiresAt) return { state: 'valid', expiresAt };
    if (this.#lastFailure !== undefined) return { state: refusesCredentials(this.#lastFailure) ? 'refused' : 'failing', expiresAt };
    return { state: token ? 'expired' : 'none', expiresAt };
  }

  /**
   * Holds token requests back after a search refused a token the endpoint had
   * just issued: not a refusal of the credentials (only the token endpoint
   * can refuse those, and only that starts the cool-down), but a failure like
   * any other, backed off so that no search costs a token call; until the
   * backoff ends, every caller that needs a token gets `error` at once.
   */
  newTokenRefused(error: UpstreamAuthError): UpstreamAuthError {
    this.#fail(error);
    return error;
  }

  /** `text` with the client secret and recent service tokens blanked out, for text the upstream wrote. */
  redact(text: string): string {
    return [this.#options.credentials.clientSecret, ...this.#recentTokens].reduce(
      (redacted, secret) => redacted.replaceAll(secret, '[redacted]'),
      text,
    );
  }

  /** Forgets `token` after the upstream refused it, here and in the fleet's store while it is still there; a newer token is kept. */
  invalidate(token: string): void {
    if (!this.#refusedTokens.includes(token)) remember(this.#refusedTokens, token);
    if (this.#shared) void this.#shared.drop(token);
    if (this.#token?.value !== token) return;
    this.#token = undefined;
    this.#dropped = true;
  }

  /**
   * A failed early renewal costs nothing yet, as the current token stays in
   * use; the backoff keeps a failing token endpoint, whose calls count
   * against the quota, from being asked on every search.
   */
  #renewEarly(): void {
    // Searches made while a renewal runs share it.
    if (this.#pending || this.#backoff.held()) return;
    // The failure is logged and held in #renew; the current token stays in use.
    this.#renew('early').catch(() => {});
  }

  #renew(trigger: TokenRenewalTrigger): Promise<ServiceToken> {
    const held = this.#backoff.held();
    if (held) return Promise.reject(held);
    this.#pending ??= this.#startRenewal(trigger);
    return this.#pending;
  }

  /** The one token request in flight; the renewals that join it are not counted again. */
  #startRenewal(trigger: TokenRenewalTrigger): Promise<ServiceToken> {
    const observer = this.#options.observer ?? NO_UPSTREAM_OBSERVER;
    return this.#obtain()
      .then((token) => {
        observer.tokenRenewal(trigger, 'success');
        this.#backoff.succeed();
        if (!this.#recentTokens.includes(token.value)) remember(this.#recentTokens, token.value);
        this.#dropped = false;
        this.#lastFailure = undefined;
        this.#token = token;
        return token;
      })
      .catch((error: unknown) => {
        observer.tokenRenewal(trigger, refusesCredentials(error) ? 'credentials_refused' : 'failure');
        this.#fail(error);
        throw error;
      })
      .finally(() => (this.#pending = undefined));
  }

  /**
   * A token for the caller: alone, from the upstream; in a fleet, the fleet's
   * token while it needs no renewal, else one renewed by whichever instance
   * takes the lock, the others waiting for it rather than asking the upstream.
   */
  async #obtain(): Promise<ServiceToken> {
    const shared = this.#shared;
    if (shared === undefined) return this.#requestToken();
    const { callTimeoutMs } = this.#options;
    // Half the call's time at most, as for windows: then there is still time to ask the upstream itself.
    const obtained = await shared.obtain(this.#refusedTokens, callTimeoutMs, Date.now() + callTimeoutMs / 2);
    if (obtained.outcome === 'token') return obtained.token;
    if (obtained.outcome === 'refused') {
      const error = new UpstreamAuthError('Company lookup service refused the client credentials to another instance of the gateway');
      fleetRefusals.add(error);
      throw error;
    }
    let token: ServiceToken;
    try {
      token = await this.#requestToken();
    } catch (error) {
      void shared.abandon(obtained.lockId);
      throw error;
    }
    // The others waiting for it ask again until it is there; this instance has it now.
    void shared.publish(token, obtained.lockId);
    return token;
  }

  /** One failure, of whatever kind: held back and logged once, however many callers were waiting for it. */
  #fail(error: unknown): void {
    const waitMs = this.#backoff.fail(error);
    this.#lastFailure = error;
    const { log } = this.#options;
    if (error instanceof UpstreamAuthError && endpointRefusals.has(error)) void this.#shared?.refuse(this.#options.refusedCooldownMs);
    if (refusesCredentials(error)) {
      reportFailure(log, error, 'Company lookup service refused the client credentials; not asking again during the cool-down', { waitMs });
    } else if (error instanceof UpstreamAuthError) {
      reportFailure(
        log,
        error,
        'Company lookup service refused a service token it had just issued; not asking for another during the backoff',
        {
          waitMs,
        },
      );
    } else if (this.#token && this.#clock() < this.#token.expiresAt) {
      reportFailure(log, error, 'Early renewal of the service token failed; keeping the current token', { waitMs });
    } else {
      reportFailure(log, error, 'Company lookup service gave no usable service token; not asking again during the backoff', { waitMs });
    }
  }

  /** Refused credentials stay refused until someone changes them; other failures back off exponentially, or as long as Retry-After asks. */
  #backoffMs(error: unknown, failures: number): number {
    if (refusesCredentials(error)) return this.#options.refusedCooldownMs;
    const exponential = exponentialDelay(TOKEN_BACKOFF_BASE_MS, TOKEN_BACKOFF_MAX_MS)(failures);
    return error instanceof UpstreamTransientError ? Math.max(exponential, error.retryAfterMs ?? 0) : exponential;
  }

  #requestToken(): Promise<ServiceToken> {
    const requestedAt = this.#clock();
    const { credentials, callTimeoutMs } = this.#options;
    return this.#http.request(
      {
        method: 'POST',
        endpoint: TOKEN_ENDPOINT,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(tokenRequestFields(credentials)),
      },
      // The call's deadline is real time; the clock only decides how long the token lives.
      Date.now() + callTimeoutMs,
      (response) => this.#readToken(response, requestedAt),
    );
  }

  #readToken(response: UpstreamResponse, requestedAt: number): ServiceToken {
    const where = `POST ${TOKEN_ENDPOINT}`;
    if (response.status === 400 || response.status === 401) {
      const error = new UpstreamAuthError(`Company lookup service refused the client credentials on ${where} (${response.status})`);
      endpointRefusals.add(error);
      throw error;
    }
    if (response.status !== 200) throw errorForStatus(response.status, where, response.retryAfterMs);
    const { accessToken, expiresInMs, notes } = readTokenResponse(response.body, where);
    const { defaultMs, minMs, maxMs } = this.#options.lifetime;
    const lifetimeMs = Math.min(Math.max(expiresInMs ?? defaultMs, minMs), maxMs);
    if (expiresInMs !== undefined && lifetimeMs !== expiresInMs) notes.push(`expires_in outside ${minMs}–${maxMs} ms`);
    if (notes.length > 0) {
      this.#options.log.info({ notes, expiresInMs, lifetimeMs }, 'Company lookup service sent an unusual token answer; using the token');
    }
    const margin = Math.min(lifetimeMs * REFRESH_MARGIN_SHARE, MAX_REFRESH_MARGIN_MS);
    this.#issued += 1;
    return {
      value: accessToken,
      refreshAt: requestedAt + lifetimeMs - margin,
      expiresAt: requestedAt + lifetimeMs,
      issued: this.#issued,
    };
  }
}

/** Puts `value` first in `list`, keeping the last few. */
function remember(list: string[], value: string): void {
  list.unshift(value);
  list.length = Math.min(list.length, RECENT_TOKENS_KEPT);
}
