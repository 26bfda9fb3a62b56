import { describe, expect, it } from 'vitest';
import { describeConfig, readConfig } from '../../../src/gateway/config/gateway-config.js';
import { problemsOf } from '../../support/config-problems.js';

describe('shared state settings', () => {
  it('share nothing by default, with the documented prefix and deadline', () => {
    expect(readConfig({})).toMatchObject({
      redisUrl: undefined,
      redisKeyPrefix: 'csg:',
      redisCommandTimeoutMs: 250,
    });
  });

  it('read a redis:// or rediss:// URL with its user, password and database', () => {
    const config = readConfig({
      REDIS_URL: 'rediss://gateway:pa%24%24word@redis.internal:6380/2',
      REDIS_KEY_PREFIX: 'eu-search:',
      REDIS_COMMAND_TIMEOUT_MS: '30',
    });
    expect(config.redisUrl?.href).toBe('rediss://gateway:pa%24%24word@redis.internal:6380/2');
    expect(config).toMatchObject({ redisKeyPrefix: 'eu-search:', redisCommandTimeoutMs: 30 });
  });

  it.each([
    ['http://redis.internal:6379', 'REDIS_URL must be a redis:// or rediss:// URL with a host'],
    ['redis://', 'REDIS_URL must be a redis:// or rediss:// URL with a host'],
    ['not a url with secret-pass', 'REDIS_URL must be a redis:// or rediss:// URL with a host'],
    ['redis://:secret-pass@redis.internal/cache', 'REDIS_URL may name a database number as its path (such as /0)'],
    ['redis://:secret-pass@redis.internal/0?timeout=1', 'REDIS_URL may name a database number as its path (such as /0)'],
    ['redis://secret-pass@redis.internal:6379/0', 'REDIS_URL has a user and no password: write the password after a colon'],
  ])('refuse REDIS_URL=%s without echoing it', (value, problem) => {
    const problems = problemsOf({ REDIS_URL: value });
    expect(problems).toEqual([expect.stringContaining(problem)]);
    expect(problems.join('\n')).not.toContain('secret-pass');
  });

  it('refuse a key prefix with spaces or too long, and a deadline out of range', () => {
    expect(problemsOf({ REDIS_KEY_PREFIX: 'my prefix' })).toEqual([expect.stringContaining('REDIS_KEY_PREFIX must be at most 64')]);
    expect(problemsOf({ REDIS_KEY_PREFIX: 'x'.repeat(65) })).toEqual([expect.stringContaining('REDIS_KEY_PREFIX must be at most 64')]);
    expect(problemsOf({ REDIS_COMMAND_TIMEOUT_MS: '0' })).toEqual([
      'REDIS_COMMAND_TIMEOUT_MS must be a whole number from 1 to 10000, got "0"',
    ]);
  });

  it('read UPSTREAM_MAX_CALLS_PER_MINUTE: unset, no budget; else a whole number from 1', () => {
    expect(readConfig({}).upstreamMaxCallsPerMinute).toBeUndefined();
    expect(readConfig({ UPSTREAM_MAX_CALLS_PER_MINUTE: '600' }).upstreamMaxCallsPerMinute).toBe(600);
    expect(problemsOf({ UPSTREAM_MAX_CALLS_PER_MINUTE: '0' })).toEqual([
      'UPSTREAM_MAX_CALLS_PER_MINUTE must be a whole number from 1 to 10000000, got "0"',
    ]);
  });

  it('print the URL with its password redacted', () => {
    const printed = describeConfig(readConfig({ REDIS_URL: 'redis://gateway:secret-pass@redis.internal:6379/0' }));
    expect(printed.redisUrl).toBe('redis://gateway:[redacted]@redis.internal:6379/0');
    expect(JSON.stringify(printed)).not.toContain('secret-pass');
    expect(describeConfig(readConfig({ REDIS_URL: 'redis://redis.internal' })).redisUrl).toBe('redis://redis.internal');
  });
});
