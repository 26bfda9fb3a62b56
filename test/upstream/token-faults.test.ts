import { afterEach, describe, expect, it } from 'vitest';
import { TOKEN_BACKOFF_BASE_MS } from '../../src/upstream/token-manager.js';
import { errorCode } from '../support/answers.js';
import { manualClock } from '../support/clock.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack | undefined;
afterEach(() => stack?.close());

describe('token endpoint faults', () => {
  it('does not offer refused credentials again during the cool-down: one token call for many searches', async () => {
    const clock = manualClock();
    stack = await startStack({ clock, gateway: { tokenRefusedCooldownMs: 500 } });
    stack.lookup.knobs.failToken({ status: 401 }, Number.POSITIVE_INFINITY);
    for (let search = 0; search < 5; search++) expect(await errorCode(stack)).toBe('UPSTREAM_AUTH_FAILED');
    expect(stack.lookup.counters.tokenRequests).toBe(1);
    expect(stack.lookup.counters.searchRequests).toBe(0);
    expect(stack.logs.filter((line) => line.includes('not asking again during the cool-down'))).toHaveLength(1);

    stack.lookup.knobs.clearFaults();
    expect(await errorCode(stack)).toBe('UPSTREAM_AUTH_FAILED');
    clock.advance(550);
    expect(await errorCode(stack)).toBeUndefined();
    expect(stack.lookup.counters.tokenRequests).toBe(2);
  });

  it('backs off, without the refused-credentials cool-down, when search refuses a token the upstream has just issued', async () => {
    const clock = manualClock();
    stack = await startStack({ clock, gateway: { tokenRefusedCooldownMs: 60_000 } });
    expect(await errorCode(stack)).toBeUndefined();
    stack.lookup.counters.reset();
    stack.lookup.knobs.failSearch({ status: 401 }, Number.POSITIVE_INFINITY);
    for (let search = 0; search < 10; search++) expect(await errorCode(stack)).toBe('UPSTREAM_AUTH_FAILED');
    // The first search: the refused token, one renewal, the renewed token refused; then nothing until the backoff ends.
    expect(stack.lookup.counters.searchRequests).toBe(2);
    expect(stack.lookup.counters.tokenRequests).toBe(1);
    // Only the token endpoint refuses the credentials: no cool-down, and no alarm that they were refused.
    expect(stack.logs.filter((line) => line.includes('refused the client credentials'))).toEqual([]);
    expect(stack.logs.filter((line) => line.includes('refused a service token it had just issued'))).toHaveLength(1);
    clock.advance(TOKEN_BACKOFF_BASE_MS);
    expect(await errorCode(stack)).toBe('UPSTREAM_AUTH_FAILED');
    expect(stack.lookup.counters).toMatchObject({ tokenRequests: 2, searchRequests: 3 });
  });

  it('asks once for the many concurrent searches waiting on a refused credential', async () => {
    stack = await startStack({ lookup: { tokenLatencyMs: 100 }, gateway: { tokenRefusedCooldownMs: 60_000 } });
    stack.lookup.knobs.failToken({ status: 401 }, Number.POSITIVE_INFINITY);
    const codes = await Promise.all(Array.from({ length: 20 }, () => errorCode(stack!)));
    expect(new Set(codes)).toEqual(new Set(['UPSTREAM_AUTH_FAILED']));
    expect(stack.lookup.counters.tokenRequests).toBe(1);
  });

  it('answers from the current token while the token endpoint fails, until the token expires', async () => {
    const clock = manualClock();
    stack = await startStack({
      clock,
      lookup: { tokenLifetimeSeconds: 1 },
      gateway: { upstreamRetries: 0, upstreamTokenMinLifetimeMs: 1_000 },
    });
    expect(await errorCode(stack)).toBeUndefined();
    stack.lookup.knobs.failToken({ status: 503 }, Number.POSITIVE_INFINITY);
    stack.lookup.counters.reset();
    // Within the refresh margin the renewal fails in the background; searches go on with the valid token.
    clock.advance(920);
    expect(await errorCode(stack)).toBeUndefined();
    expect(stack.lookup.counters.searchesAnswered).toBe(1);

    clock.advance(200);
    expect(await errorCode(stack)).toBe('UPSTREAM_UNAVAILABLE');
    stack.lookup.knobs.clearFaults();
    clock.advance(TOKEN_BACKOFF_BASE_MS);
    expect(await errorCode(stack)).toBeUndefined();
  });
});
