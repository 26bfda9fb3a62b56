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
    expect(config.redisUrl).toEqual({ topology: 'single', url: new URL('rediss://gateway:pa%24%24word@redis.internal:6380/2') });
    expect(config).toMatchObject({ redisKeyPrefix: 'eu-search:', redisCommandTimeoutMs: 30 });
  });

  it('read a cluster as any of its nodes, with TLS, the user and the password percent-decoded', () => {
    expect(readConfig({ REDIS_URL: 'rediss-cluster://gateway:pa%24%24word@redis-0.internal:7000,10.0.0.2:7001,[::1]' }).redisUrl).toEqual({
      topology: 'cluster',
      tls: true,
      username: 'gateway',
      password: 'pa$$word',
      nodes: [
        { host: 'redis-0.internal', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 6379 },
      ],
    });
    expect(readConfig({ REDIS_URL: 'redis-cluster://redis-0.internal:7000' }).redisUrl).toEqual({
      topology: 'cluster',
      tls: false,
      username: undefined,
      password: undefined,
      nodes: [{ host: 'redis-0.internal', port: 7000 }],
    });
  });

  it("read a master's sentinels and its name, the sentinels' own password apart", () => {
    const config = readConfig({
      REDIS_URL: 'redis-sentinel://:node-pass@sentinel-0.internal,sentinel-1.internal:26380/eu%2Dmaster',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pass',
    });
    expect(config.redisUrl).toEqual({
      topology: 'sentinel',
      tls: false,
      username: undefined,
      password: 'node-pass',
      sentinels: [
        { host: 'sentinel-0.internal', port: 26379 },
        { host: 'sentinel-1.internal', port: 26380 },
      ],
      masterName: 'eu-master',
    });
    expect(config.redisSentinelPassword).toBe('sentinel-pass');
  });

  const FORMS = 'REDIS_URL must be one of redis://[USER:PASSWORD@]HOST[:PORT][/DB], redis-cluster://';
  it.each([
    ['http://redis.internal:6379', FORMS],
    ['redis://', FORMS],
    ['not a url with secret-pass', FORMS],
    ['redis-sentinels://:secret-pass@sentinel.internal/mymaster', FORMS],
    ['redis://:secret-pass@redis.internal/cache', 'REDIS_URL may name a database number as its path (such as /0)'],
    ['redis://:secret-pass@redis.internal/0?timeout=1', 'REDIS_URL may name a database number as its path (such as /0)'],
    ['redis://secret-pass@redis.internal:6379/0', 'REDIS_URL has a user and no password: write the password after a colon'],
    ['redis-cluster://secret-pass@redis-0.internal:7000', 'REDIS_URL has a user and no password: write the password after a colon'],
    ['redis-cluster://:secret-pass@redis-0.internal:7000/0', 'REDIS_URL: a Redis Cluster has only database 0'],
    [
      'redis-cluster://:secret-pass@redis-0.internal:7000,,redis-1.internal',
      'REDIS_URL must list its nodes as HOST:PORT separated by commas',
    ],
    ['redis-cluster://:secret-pass@redis-0.internal:port', 'REDIS_URL must list its nodes as HOST:PORT separated by commas'],
    ['rediss-cluster://:secret-pass@redis-0.internal:7000?tls=1', 'REDIS_URL must not carry a query or a fragment'],
    ['redis-sentinel://:secret-pass@sentinel-0.internal:26379', 'REDIS_URL must name the master after the sentinels'],
    ['redis-sentinel://:secret-pass@sentinel-0.internal:26379/', 'REDIS_URL must name the master after the sentinels'],
    ['redis-sentinel://:secret-pass@sentinel-0.internal:26379/mymaster/0', 'REDIS_URL must name the master after the sentinels'],
    ['redis-sentinel://:secret%ZZpass@sentinel-0.internal:26379/mymaster', 'REDIS_URL has a user or password that is not percent-encoded'],
  ])('refuse REDIS_URL=%s without echoing it', (value, problem) => {
    const problems = problemsOf({ REDIS_URL: value });
    expect(problems).toEqual([expect.stringContaining(problem)]);
    expect(problems.join('\n')).not.toMatch(/secret.?.?.?pass/);
  });

  it('refuse REDIS_SENTINEL_PASSWORD beside a REDIS_URL that names no sentinels, in one line', () => {
    expect(problemsOf({ REDIS_URL: 'redis://redis.internal', REDIS_SENTINEL_PASSWORD: 'sentinel-pass' })).toEqual([
      'REDIS_SENTINEL_PASSWORD is set but REDIS_URL names no sentinels: unset it, or name them (redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER_NAME)',
    ]);
    expect(problemsOf({ REDIS_SENTINEL_PASSWORD: 'sentinel-pass' })).toHaveLength(1);
  });

  it('refuse a key prefix with spaces or braces or too long, and a deadline out of range', () => {
    expect(problemsOf({ REDIS_KEY_PREFIX: 'my prefix' })).toEqual([expect.stringContaining('REDIS_KEY_PREFIX must be at most 64')]);
    expect(problemsOf({ REDIS_KEY_PREFIX: 'x'.repeat(65) })).toEqual([expect.stringContaining('REDIS_KEY_PREFIX must be at most 64')]);
    // The gateway's hash tags follow the prefix: a brace in it would take their place.
    expect(problemsOf({ REDIS_KEY_PREFIX: '{csg}:' })).toEqual([expect.stringContaining('without spaces or braces')]);
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

  it('print the URL with its password redacted, whatever the topology', () => {
    const printed = (url: string) => describeConfig(readConfig({ REDIS_URL: url })).redisUrl;
    expect(printed('redis://gateway:secret-pass@redis.internal:6379/0')).toBe('redis://gateway:[redacted]@redis.internal:6379/0');
    expect(printed('redis://redis.internal')).toBe('redis://redis.internal');
    expect(printed('rediss-cluster://gateway:secret-pass@redis-0.internal:7000,[::1]:7001')).toBe(
      'rediss-cluster://gateway:[redacted]@redis-0.internal:7000,[::1]:7001',
    );
    expect(printed('redis-sentinel://:secret-pass@sentinel-0.internal/mymaster')).toBe(
      'redis-sentinel://:[redacted]@sentinel-0.internal:26379/mymaster',
    );
    const all = describeConfig(
      readConfig({ REDIS_URL: 'redis-sentinel://:secret-pass@sentinel-0.internal/mymaster', REDIS_SENTINEL_PASSWORD: 'sentinel-pass' }),
    );
    expect(JSON.stringify(all)).not.toMatch(/secret-pass|sentinel-pass/);
  });
});
