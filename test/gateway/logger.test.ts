import { describe, expect, it } from 'vitest';
import { accessLoggerOf, createLogger } from '../../src/gateway/logger.js';

describe('createLogger', () => {
  it('redacts credential fields wherever a caller puts them', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    logger.info(
      {
        clientSecret: 'secret-1',
        upstream: { clientSecret: 'secret-2', authorization: 'Bearer token-1' },
        headers: { authorization: 'Bearer token-2' },
        token: 'token-3',
        auth: { token: 'token-4' },
      },
      'configuration',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/secret-\d|token-\d/);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      clientSecret: '[redacted]',
      upstream: { clientSecret: '[redacted]', authorization: '[redacted]' },
      headers: { authorization: '[redacted]' },
      token: '[redacted]',
      auth: { token: '[redacted]' },
    });
  });
});

describe('accessLoggerOf', () => {
  it('writes request lines to the same destination, at the same level, as the logger it is made from', () => {
    const lines: string[] = [];
    const access = accessLoggerOf(createLogger('warn', { write: (line: string) => lines.push(line) }));
    access.info({ method: 'POST', path: '/graphql', status: 200, durationMs: 0.4 }, 'request');
    access.warn({ method: 'GET', path: '/health', status: 200, durationMs: 0.1 }, 'request');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      {
        level: 40,
        time: expect.any(Number),
        service: 'company-search-gateway',
        method: 'GET',
        path: '/health',
        status: 200,
        durationMs: 0.1,
        msg: 'request',
      },
    ]);
  });
});
