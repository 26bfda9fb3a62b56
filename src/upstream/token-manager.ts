import { UpstreamAuthError, UpstreamBadResponseError, errorForStatus, type UpstreamError } from './errors.js';
import type { UpstreamLog } from './log.js';
import type { UpstreamHttp } from './upstream-http.js';

export const TOKEN_ENDPOINT = '/v1/oauth/token';

/** A token is renewed this share of its lifetime before it expires ... */
export const REFRESH_MARGIN_SHARE = 0.1;
/** ... but never earlier than this before it expires. */
export const MAX_REFRESH_MARGIN_MS = 60_000;
/** After a failed early renewal, the still-valid token is used this long before the next try. */
export const EARLY_RENEWAL_RETRY_MS = 5_000;
const RECENT_TOKENS_KEPT = 3;

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export interface TokenManagerOptions {
  credentials: ClientCredentials;
  /** How long one token request may take. */
  callTimeoutMs: number;
  /** After the upstream refuses the credentials, how long before they are offered again. */
  refusedCooldownMs: number;
  log: UpstreamLog;
}

interface ServiceToken {
  value: string;
  refreshAt: number;
  expiresAt: number;
}

/**
 * Holds the gateway's ONE service token. Token requests count against the
 * upstream's rate limit, so every caller shares the current token and at most
 * one token request is in flight at a time.
 */
export class TokenManager {
  readonly #http: UpstreamHttp;
  readonly #options: TokenManagerOptions;
  #token: ServiceToken | undefined;
  #pending: Promise<ServiceToken> | undefined;
  #nextEarlyRenewalAt = 0;
  #refused: { error: UpstreamAuthError; until: number } | undefined;
  /** The last few tokens issued: one may still be in flight after a renewal. */
  readonly #recentTokens: string[] = [];

  constructor(http: UpstreamHttp, options: TokenManagerOptions) {
    this.#http = http;
    this.#options = options;
  }

  /**
   * The current token. Past its refresh point a still-valid token is returned
   * at once while a renewal runs in the background; only an expired or
   * missing token makes the caller wait.
   */
  async getToken(): Promise<string> {
    const token = this.#token;
    const now = Date.now();
    if (token && now < token.expiresAt) {
      if (now >= token.refreshAt && now >= this.#nextEarlyRenewalAt) this.#renewEarly();
      return token.value;
    }
    return (await this.#renew()).value;
  }

  /**
   * Starts the cool-down after the upstream refused the credentials, or a
   * token it had just issued: until it ends, every caller gets `error` at once.
   */
  refuse(error: UpstreamAuthError): UpstreamAuthError {
    this.#refused = { error, until: Date.now() + this.#options.refusedCooldownMs };
    this.#options.log.warn(
      { code: error.code, cooldownMs: this.#options.refusedCooldownMs },
      'Company lookup service refused the client credentials; not asking again during the cool-down',
    );
    return error;
  }

  /** `text` with the client secret and recent service tokens blanked out, for text the upstream wrote. */
  redact(text: string): string {
    return [this.#options.credentials.clientSecret, ...this.#recentTokens].reduce(
      (redacted, secret) => redacted.replaceAll(secret, '[redacted]'),
      text,
    );
  }

  /** Forgets `token` after the upstream refused it; a newer token is kept. */
  invalidate(token: string): void {
    if (this.#token?.value === token) this.#token = undefined;
  }

  /**
   * A failed early renewal costs nothing yet, as the current token stays in
   * use; waiting before the next try keeps a failing token endpoint, whose
   * calls count against the quota, from being asked on every search.
   */
  #renewEarly(): void {
    // Searches made while a renewal runs share it; one failure is one warning.
    if (this.#pending) return;
    this.#renew().catch((error: unknown) => {
      this.#nextEarlyRenewalAt = Date.now() + EARLY_RENEWAL_RETRY_MS;
      this.#options.log.warn(
        { code: (error as UpstreamError).code },
        'Early renewal of the service token failed; keeping the current token',
      );
    });
  }

  /**
   * Refused credentials stay refused until someone changes them, so for a
   * cool-down every caller gets the same refusal without another token
   * request: a tight loop of them would only burn the partner's quota.
   */
  #renew(): Promise<ServiceToken> {
    const refused = this.#refused;
    if (refused && Date.now() < refused.until) return Promise.reject(refused.error);
    this.#pending ??= this.#requestToken()
      .then((token) => {
        this.#refused = undefined;
        this.#recentTokens.unshift(token.value);
        this.#recentTokens.length = Math.min(this.#recentTokens.length, RECENT_TOKENS_KEPT);
        return (this.#token = token);
      })
      .catch((error: unknown) => {
        throw error instanceof UpstreamAuthError ? this.refuse(error) : error;
      })
      .finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #requestToken(): Promise<ServiceToken> {
    const where = `POST ${TOKEN_ENDPOINT}`;
    const requestedAt = Date.now();
    const { credentials, callTimeoutMs } = this.#options;
    const response = await this.#http.request(
      {
        method: 'POST',
        endpoint: TOKEN_ENDPOINT,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          client_id: credentials.clientId,
          client_secret: credentials.clientSecret,
          grant_type: 'client_credentials',
        }),
      },
      requestedAt + callTimeoutMs,
    );
    if (response.status === 400 || response.status === 401) {
      throw new UpstreamAuthError(`Company lookup service refused the client credentials on ${where} (${response.status})`);
    }
    if (response.status !== 200) throw errorForStatus(response.status, where, response.retryAfterMs);

    const { accessToken, expiresInMs } = readTokenResponse(response.body, where);
    const margin = Math.min(expiresInMs * REFRESH_MARGIN_SHARE, MAX_REFRESH_MARGIN_MS);
    return {
      value: accessToken,
      refreshAt: requestedAt + expiresInMs - margin,
      expiresAt: requestedAt + expiresInMs,
    };
  }
}

function readTokenResponse(body: string, where: string): { accessToken: string; expiresInMs: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new UpstreamBadResponseError(`Company lookup service sent a token response that is not JSON on ${where}`);
  }
  const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn } = (parsed ?? {}) as Record<
    string,
    unknown
  >;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new UpstreamBadResponseError(`Company lookup service sent a token response without access_token on ${where}`);
  }
  if (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer') {
    throw new UpstreamBadResponseError(`Company lookup service sent a token_type other than Bearer on ${where}`);
  }
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    throw new UpstreamBadResponseError(`Company lookup service sent a token response without a valid expires_in on ${where}`);
  }
  return { accessToken, expiresInMs: expiresIn * 1000 };
}
