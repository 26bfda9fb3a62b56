import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/gateway/logger.js';
import { createErrorMasker } from '../../src/gateway/graphql/mask-error.js';
import { UpstreamTimeoutError } from '../../src/errors/upstream-errors.js';
import { BadUserInputError } from '../../src/errors/field-errors.js';

function masker() {
  const logs: string[] = [];
  const mask = createErrorMasker(createLogger('info', { write: (line: string) => logs.push(line) }));
  return { mask, logs };
}

const located = (originalError: Error) => new GraphQLError(originalError.message, { path: ['searchCompanies'], originalError });

describe('createErrorMasker', () => {
  it('masks an unexpected error and logs it with its stack', () => {
    const { mask, logs } = masker();
    const masked = mask(located(new TypeError('Cannot read properties of undefined (reading "x")')), 'Unexpected error.', false);
    expect(masked).toBeInstanceOf(GraphQLError);
    expect((masked as GraphQLError).message).toBe('Unexpected error.');
    expect(JSON.stringify((masked as GraphQLError).toJSON())).not.toContain('Cannot read properties');
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0]!)).toMatchObject({
      level: 50,
      msg: 'Unexpected error while executing an operation',
      err: { type: 'TypeError', message: 'Cannot read properties of undefined (reading "x")', stack: expect.any(String) },
    });
  });

  it('passes an upstream error on with its code, path and client message, logging its detail only at debug', () => {
    const logs: string[] = [];
    const mask = createErrorMasker(createLogger('debug', { write: (line: string) => logs.push(line) }));
    const error = new UpstreamTimeoutError('Company lookup service timed out on POST /v1/oauth/token (UND_ERR_HEADERS_TIMEOUT)');
    const masked = mask(located(error), 'Unexpected error.', false);
    expect((masked as GraphQLError).toJSON()).toEqual({
      message: 'The company lookup service did not answer in time; try again shortly.',
      path: ['searchCompanies'],
      extensions: { code: 'UPSTREAM_TIMEOUT' },
    });
    // The upstream client logged the failure once; each request that got it is detail.
    expect(logs.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 20, code: 'UPSTREAM_TIMEOUT', detail: error.detail, path: ['searchCompanies'] }),
    ]);
  });

  it('passes an error the schema raised on purpose unchanged', () => {
    const { mask, logs } = masker();
    const error = located(new BadUserInputError('q', 'must not be empty or blank'));
    expect(mask(error, 'Unexpected error.', false)).toBe(error);
    expect(logs).toEqual([]);
  });
});
