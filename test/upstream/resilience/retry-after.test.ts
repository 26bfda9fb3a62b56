import { afterEach, describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/upstream/resilience/retry-policy.js';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { errorCode } from '../../support/answers.js';
import { manualClock, type ManualClock } from '../../support/clock.js';
import { freshSearch } from '../../support/searches.js';
import { startStack, type Stack } from '../../support/stack.js';

const MAX_MS = 60_000;
const NOW = Date.UTC(2030, 0, 1);

describe('parseRetryAfter', () => {
  it.each([
    ['delay-seconds under the cap', '30', 30_000],
    ['delay-seconds far over the cap', '1000000000', MAX_MS],
    ['delay-seconds too long for a number', '9'.repeat(400), MAX_MS],
    ['an HTTP date in 9999', 'Fri, 31 Dec 9999 23:59:59 GMT', MAX_MS],
    ['an HTTP date 10 s ahead', new Date(NOW + 10_000).toUTCString(), 10_000],
    ['an RFC 850 date, its two-digit year read as 1999', 'Friday, 31-Dec-99 23:59:59 GMT', 0],
    ['an asctime date far ahead', 'Fri Dec 31 23:59:59 9999', MAX_MS],
    ['an HTTP date in the past', 'Sun, 06 Nov 1994 08:49:37 GMT', 0],
    ['zero', '0', 0],
  ])('reads %s, at most the cap', (_name, header, expected) => {
    expect(parseRetryAfter(header, MAX_MS, NOW)).toBe(expected);
  });

  it.each([
    ['absent', undefined],
    ['blank', '  '],
    ['a word', 'soon'],
    ['what Date.parse would read as a date in 2001', 'abc 2'],
    ['a negative number', '-5'],
    ['a fraction', '1.5'],
    ['an exponent', '1e9'],
  ])('ignores %s', (_name, header) => {
    expect(parseRetryAfter(header, MAX_MS, NOW)).toBeUndefined();
  });

  it('reads the first of repeated headers, and honours a cap of 0', () => {
    expect(parseRetryAfter(['5', '1000000'], MAX_MS, NOW)).toBe(5_000);
    expect(parseRetryAfter('1000000', 0, NOW)).toBe(0);
  });
});

describe('a Retry-After far in the future', () => {
  let stack: Stack | undefined;
  afterEach(() => stack?.close());

  /** A stack whose circuit opens on the first failure, with its token fetched while the upstream is healthy. */
  async function start(clock: ManualClock): Promise<Stack> {
    stack = await startStack({ clock, gateway: { upstreamRetries: 0, upstreamBreakerFailures: 1, upstreamBreakerCooldownMs: 1_000 } });
    await stack.execute(DashboardSearchDocument, freshSearch());
    stack.lookup.counters.reset();
    return stack;
  }

  it.each([
    ['a 429 asking for 1,000,000,000 s', 429, '1000000000', 'UPSTREAM_RATE_LIMITED'],
    ['a 429 asking until 9999', 429, 'Fri, 31 Dec 9999 23:59:59 GMT', 'UPSTREAM_RATE_LIMITED'],
    ['a 503 asking for a day', 503, '86400', 'UPSTREAM_UNAVAILABLE'],
  ])('holds calls back for UPSTREAM_MAX_RETRY_AFTER_MS at most after %s', async (_name, status, retryAfter, code) => {
    const clock = manualClock();
    const stack = await start(clock);
    stack.lookup.knobs.failSearch({ status, headers: { 'retry-after': retryAfter } });
    expect(await errorCode(stack)).toBe(code);
    expect(stack.logs.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ msg: 'Company lookup service keeps failing; holding calls back', cooldownMs: MAX_MS }),
    );

    clock.advance(MAX_MS - 1);
    expect(await errorCode(stack)).toBe(code);
    expect(stack.lookup.counters.searchRequests).toBe(1);

    clock.advance(1);
    expect(await errorCode(stack)).toBeUndefined();
    expect(stack.lookup.counters.searchRequests).toBe(2);
  });

  it('on the token endpoint holds token requests back for UPSTREAM_MAX_RETRY_AFTER_MS at most', async () => {
    const clock = manualClock();
    stack = await startStack({ clock, gateway: { upstreamRetries: 0 } });
    stack.lookup.knobs.failToken({ status: 429, headers: { 'retry-after': '1000000000' } });
    expect(await errorCode(stack)).toBe('UPSTREAM_RATE_LIMITED');

    clock.advance(MAX_MS - 1);
    expect(await errorCode(stack)).toBe('UPSTREAM_RATE_LIMITED');
    expect(stack.lookup.counters.tokenRequests).toBe(1);

    clock.advance(1);
    expect(await errorCode(stack)).toBeUndefined();
    expect(stack.lookup.counters.tokenRequests).toBe(2);
  });
});
