import { describe, expect, it } from 'vitest';
import { UpstreamAuthError, UpstreamUnavailableError } from '../../src/errors/upstream-errors.js';
import { TOKEN_BACKOFF_BASE_MS, TokenManager } from '../../src/upstream/token-manager.js';
import type { UpstreamHttp, UpstreamRequest, UpstreamResponse } from '../../src/upstream/upstream-http.js';
import { manualClock } from '../support/clock.js';
import { recordingLog } from '../support/upstream-log.js';

const LIFETIME_MS = 100_000;
/** A tenth of the lifetime: the token is renewed from 90 s on. */
const REFRESH_AT_MS = 90_000;
const REFUSED_COOLDOWN_MS = 30_000;

interface PendingCall {
  request: UpstreamRequest;
  answer(status: number, body?: unknown, retryAfterMs?: number): void;
}

/** The token endpoint as the test answers it: each call waits until the test answers it. */
function tokenEndpoint() {
  const calls: PendingCall[] = [];
  const http = {
    request<T>(request: UpstreamRequest, _expiresAt: number, read: (response: UpstreamResponse) => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        calls.push({
          request,
          answer(status, body = {}, retryAfterMs) {
            try {
              resolve(read({ status, body: JSON.stringify(body), retryAfterMs }));
            } catch (error) {
              reject(error);
            }
          },
        });
      });
    },
  };
  return { calls, http: http as unknown as UpstreamHttp };
}

const issued = (token: string, expiresIn = LIFETIME_MS / 1_000) => ({ access_token: token, token_type: 'Bearer', expires_in: expiresIn });

function manager() {
  const clock = manualClock(0);
  const endpoint = tokenEndpoint();
  const tokens = new TokenManager(endpoint.http, {
    credentials: { clientId: 'gateway', clientSecret: 's3cret' },
    callTimeoutMs: 5_000,
    refusedCooldownMs: REFUSED_COOLDOWN_MS,
    lifetime: { defaultMs: 60_000, minMs: 10_000, maxMs: 1_000_000 },
    log: recordingLog(),
    clock,
  });
  return { clock, calls: endpoint.calls, tokens };
}

/** Lets the promise callbacks run that an answer has set going. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('TokenManager', () => {
  it('asks once for the many callers that need a token at the same time', async () => {
    const { calls, tokens } = manager();
    const waiting = Array.from({ length: 10 }, () => tokens.getToken());
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.request.body!)).toEqual({
      client_id: 'gateway',
      client_secret: 's3cret',
      grant_type: 'client_credentials',
    });
    calls[0]!.answer(200, issued('first'));
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 10 }, () => 'first'));
    expect(await tokens.getToken()).toBe('first');
    expect(calls).toHaveLength(1);
  });

  it('renews early: past the refresh point the current token is answered at once while one renewal runs', async () => {
    const { calls, tokens, clock } = manager();
    const first = tokens.getToken();
    calls[0]!.answer(200, issued('first'));
    await first;

    clock.advance(REFRESH_AT_MS - 1);
    expect(await tokens.getToken()).toBe('first');
    expect(calls).toHaveLength(1);

    clock.advance(1);
    expect(await Promise.all([tokens.getToken(), tokens.getToken(), tokens.getToken()])).toEqual(['first', 'first', 'first']);
    expect(calls).toHaveLength(2);
    calls[1]!.answer(200, issued('second'));
    await settle();
    expect(await tokens.getToken()).toBe('second');
    expect(calls).toHaveLength(2);
  });

  it('makes callers wait for a new token once the current one has expired', async () => {
    const { calls, tokens, clock } = manager();
    const first = tokens.getToken();
    calls[0]!.answer(200, issued('first'));
    await first;
    // The early renewal fails, so the token runs out.
    clock.advance(REFRESH_AT_MS);
    await tokens.getToken();
    calls[1]!.answer(503);
    await settle();

    clock.advance(LIFETIME_MS - REFRESH_AT_MS);
    const waiting = tokens.getToken();
    let answered: string | undefined;
    void waiting.then((token) => (answered = token));
    await settle();
    expect(calls).toHaveLength(3);
    expect(answered).toBeUndefined();
    calls[2]!.answer(200, issued('second'));
    expect(await waiting).toBe('second');
  });

  it('keeps the current token while early renewals fail, asking again only after a backoff', async () => {
    const { calls, tokens, clock } = manager();
    const first = tokens.getToken();
    calls[0]!.answer(200, issued('first'));
    await first;
    clock.advance(REFRESH_AT_MS);
    expect(await tokens.getToken()).toBe('first');
    calls[1]!.answer(503);
    await settle();

    expect(await tokens.getToken()).toBe('first');
    clock.advance(TOKEN_BACKOFF_BASE_MS - 1);
    expect(await tokens.getToken()).toBe('first');
    expect(calls).toHaveLength(2);
    clock.advance(1);
    expect(await tokens.getToken()).toBe('first');
    expect(calls).toHaveLength(3);
  });

  it('answers every caller with the failure during the backoff, which doubles with each failure in a row', async () => {
    const { calls, tokens, clock } = manager();
    const failed = tokens.getToken();
    calls[0]!.answer(503);
    await expect(failed).rejects.toBeInstanceOf(UpstreamUnavailableError);

    clock.advance(TOKEN_BACKOFF_BASE_MS - 1);
    await expect(tokens.getToken()).rejects.toBeInstanceOf(UpstreamUnavailableError);
    expect(calls).toHaveLength(1);
    clock.advance(1);
    const again = tokens.getToken();
    calls[1]!.answer(503);
    await expect(again).rejects.toBeInstanceOf(UpstreamUnavailableError);

    clock.advance(2 * TOKEN_BACKOFF_BASE_MS - 1);
    await expect(tokens.getToken()).rejects.toBeInstanceOf(UpstreamUnavailableError);
    expect(calls).toHaveLength(2);
    clock.advance(1);
    const third = tokens.getToken();
    calls[2]!.answer(200, issued('first'));
    expect(await third).toBe('first');
  });

  it('does not offer refused credentials again until the refused cool-down has passed', async () => {
    const { calls, tokens, clock } = manager();
    const refused = tokens.getToken();
    calls[0]!.answer(401);
    const error = await refused.catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(UpstreamAuthError);

    clock.advance(REFUSED_COOLDOWN_MS - 1);
    await expect(tokens.getToken()).rejects.toBe(error);
    expect(calls).toHaveLength(1);
    clock.advance(1);
    const again = tokens.getToken();
    expect(calls).toHaveLength(2);
    calls[1]!.answer(200, issued('first'));
    expect(await again).toBe('first');
  });

  it('backs off, without the refused-credentials cool-down, when told that search refused a token it had just issued', async () => {
    const { calls, tokens, clock } = manager();
    const first = tokens.getToken();
    calls[0]!.answer(200, issued('first'));
    expect(await tokens.current()).toMatchObject({ value: 'first', issued: 1 });
    await first;
    tokens.invalidate('first');
    const refusal = tokens.newTokenRefused(new UpstreamAuthError('search refused the renewed token'));
    await expect(tokens.getToken()).rejects.toBe(refusal);
    // Only the token endpoint refuses the credentials: this is a failure like any other, backed off as one.
    expect(tokens.status().state).toBe('failing');
    clock.advance(TOKEN_BACKOFF_BASE_MS);
    void tokens.getToken();
    expect(calls).toHaveLength(2);
  });

  it('holds a token for the lifetime the upstream gives, within the configured bounds', async () => {
    const { calls, tokens, clock } = manager();
    const first = tokens.getToken();
    // One second, read as the 10 s minimum: renewed from 9 s on.
    calls[0]!.answer(200, issued('first', 1));
    await first;
    clock.advance(8_999);
    expect(await tokens.getToken()).toBe('first');
    expect(calls).toHaveLength(1);
    clock.advance(1);
    expect(await tokens.getToken()).toBe('first');
    expect(calls).toHaveLength(2);
  });
});
