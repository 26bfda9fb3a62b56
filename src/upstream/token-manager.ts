import { UpstreamAuthError, UpstreamBadResponseError, errorForStatus } from './errors.js';
import type { UpstreamHttp } from './upstream-http.js';

export const TOKEN_ENDPOINT = '/v1/oauth/token';

/** A token is renewed once this share of its lifetime has passed ... */
export const DEFAULT_REFRESH_AT_LIFETIME_SHARE = 0.9;
/** ... or this long before it expires, whichever comes first. */
export const DEFAULT_MAX_REFRESH_MARGIN_MS = 60_000;

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
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
  readonly #credentials: ClientCredentials;
  #token: ServiceToken | undefined;
  #pending: Promise<ServiceToken> | undefined;

  constructor(http: UpstreamHttp, credentials: ClientCredentials) {
    this.#http = http;
    this.#credentials = credentials;
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
      // A failed early renewal costs nothing yet: the current token stays in use
      // and the next caller past the refresh point tries again.
      if (now >= token.refreshAt) this.#renew().catch(() => {});
      return token.value;
    }
    return (await this.#renew()).value;
  }

  /** Forgets `token` after the upstream refused it; a newer token is kept. */
  invalidate(token: string): void {
    if (this.#token?.value === token) this.#token = undefined;
  }

  #renew(): Promise<ServiceToken> {
    this.#pending ??= this.#requestToken()
      .then((token) => (this.#token = token))
      .finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #requestToken(): Promise<ServiceToken> {
    const where = `POST ${TOKEN_ENDPOINT}`;
    const requestedAt = Date.now();
    const response = await this.#http.request({
      method: 'POST',
      endpoint: TOKEN_ENDPOINT,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_id: this.#credentials.clientId,
        client_secret: this.#credentials.clientSecret,
        grant_type: 'client_credentials',
      }),
    });
    if (response.status === 400 || response.status === 401) {
      throw new UpstreamAuthError(`Company lookup service refused the client credentials on ${where} (${response.status})`);
    }
    if (response.status !== 200) throw errorForStatus(response.status, where);

    const { accessToken, expiresInMs } = readTokenResponse(response.body, where);
    const margin = Math.min(expiresInMs * (1 - DEFAULT_REFRESH_AT_LIFETIME_SHARE), DEFAULT_MAX_REFRESH_MARGIN_MS);
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
