import { describe, expect, it } from 'vitest';
import {
  UpstreamAuthError,
  UpstreamBadResponseError,
  UpstreamCircuitOpenError,
  UpstreamRateLimitedError,
  UpstreamRateLimitHoldError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../../../src/errors/upstream-errors.js';
import {
  MAX_BACKOFF_MS,
  parseRetryAfter,
  RATE_LIMIT_BACKOFF_BASE_MS,
  type RetryPolicy,
  retryDelay,
} from '../../../src/upstream/resilience/retry-policy.js';

const unavailable = (retryAfterMs?: number) => new UpstreamUnavailableError('503 on GET /v1/company/search', { retryAfterMs });
const rateLimited = (retryAfterMs?: number) => new UpstreamRateLimitedError('429 on GET /v1/company/search', { retryAfterMs });

/** A policy whose random source always answers `value`. */
const policy = (value: number, baseDelayMs = 100): RetryPolicy => ({ retries: 5, baseDelayMs, random: () => value });

describe('retryDelay', () => {
  it('backs off a 5xx with full jitter under a ceiling that doubles each retry', () => {
    expect([0, 1, 2, 3].map((retry) => retryDelay(unavailable(), retry, policy(0.5)))).toEqual([50, 100, 200, 400]);
    expect(retryDelay(unavailable(), 2, policy(0))).toBe(0);
    expect(retryDelay(unavailable(), 2, policy(0.999))).toBeCloseTo(399.6);
  });

  it('never backs off longer than MAX_BACKOFF_MS, however many retries', () => {
    expect(retryDelay(unavailable(), 20, policy(0.5))).toBe(MAX_BACKOFF_MS / 2);
    expect(retryDelay(rateLimited(), 20, policy(0.5))).toBe(MAX_BACKOFF_MS * 1.5);
  });

  it('backs off a 429 from a floor of 1 s that doubles, with jitter on top of the floor', () => {
    expect([0, 1, 2].map((retry) => retryDelay(rateLimited(), retry, policy(0)))).toEqual([
      RATE_LIMIT_BACKOFF_BASE_MS,
      RATE_LIMIT_BACKOFF_BASE_MS * 2,
      RATE_LIMIT_BACKOFF_BASE_MS * 4,
    ]);
    expect(retryDelay(rateLimited(), 1, policy(0.25))).toBe(2_500);
  });

  it('waits exactly as long as a Retry-After asks, 5xx and 429 alike', () => {
    expect(retryDelay(unavailable(7_000), 0, policy(0.5))).toBe(7_000);
    expect(retryDelay(rateLimited(3_000), 4, policy(0.5))).toBe(3_000);
  });

  it('backs off as without one when a Retry-After asks for no wait at all', () => {
    expect(retryDelay(rateLimited(0), 1, policy(0.25))).toBe(2_500);
    expect(retryDelay(unavailable(0), 2, policy(0.5))).toBe(200);
  });

  it('does not retry a timeout, a refusal, a bad answer or a call the breaker held back', () => {
    for (const error of [
      new UpstreamTimeoutError('slow'),
      new UpstreamAuthError('refused'),
      new UpstreamBadResponseError('not JSON'),
      new UpstreamCircuitOpenError('open', 1_000),
      new UpstreamRateLimitHoldError('held', 1_000),
      new Error('unexpected'),
    ]) {
      expect(retryDelay(error, 0, policy(0.5))).toBeUndefined();
    }
  });

  it('falls back to Math.random when the policy names no random source', () => {
    const delay = retryDelay(unavailable(), 0, { retries: 1, baseDelayMs: 1_000 });
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThan(1_000);
  });
});

describe('parseRetryAfter', () => {
  const NOW = Date.parse('2026-03-01T12:00:00Z');
  const MAX = 60_000;

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', MAX, NOW)).toBe(0);
    expect(parseRetryAfter('7', MAX, NOW)).toBe(7_000);
    expect(parseRetryAfter(' 12 ', MAX, NOW)).toBe(12_000);
    expect(parseRetryAfter(['3', '9'], MAX, NOW)).toBe(3_000);
  });

  it('reads an HTTP date in each of its three forms, as the time left until it', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:30 GMT', MAX, NOW)).toBe(30_000);
    expect(parseRetryAfter('Sunday, 01-Mar-26 12:00:20 GMT', MAX, NOW)).toBe(20_000);
    expect(parseRetryAfter('Sun Mar  1 12:00:10 2026', MAX, NOW)).toBe(10_000);
  });

  it('reads a date in the past as no wait at all', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', MAX, NOW)).toBe(0);
  });

  it('cuts any wait to the maximum, whatever the upstream asks', () => {
    expect(parseRetryAfter('86400', MAX, NOW)).toBe(MAX);
    expect(parseRetryAfter('99999999999999999999', MAX, NOW)).toBe(MAX);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', MAX, NOW)).toBe(MAX);
  });

  it('gives undefined for an absent or unreadable header, so the caller backs off on its own', () => {
    for (const header of [undefined, '', '   ', '-5', '1.5', '5s', 'soon', 'abc 2', '2026-03-01T12:00:30Z', 'Sun, 01 Mar 2026']) {
      expect(parseRetryAfter(header, MAX, NOW)).toBeUndefined();
    }
  });
});
