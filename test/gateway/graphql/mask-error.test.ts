import { GraphQLError } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/gateway/logger.js';
import { createErrorMasker } from '../../../src/gateway/graphql/mask-error.js';
import type { GatewayServerContext } from '../../../src/gateway/graphql/server-context.js';
import { useErrorRequestIds } from '../../../src/gateway/graphql/use-error-request-ids.js';
import { startStack } from '../../support/stack.js';
import { UpstreamTimeoutError } from '../../../src/errors/upstream-errors.js';
import { BadUserInputError } from '../../../src/errors/field-errors.js';

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

describe('the log lines of masked and passed-on errors', () => {
  it('name the request whose answer holds the error, by the id the answer gives', async () => {
    const stack = await startStack({ gateway: { upstreamRetries: 0 } });
    try {
      stack.lookup.knobs.failSearch({ status: 503 }, 1);
      const answer = await stack.post(
        { query: '{ searchCompanies(q: "Fails", jurisdiction: "GB") { totalCount } }' },
        { 'x-request-id': 'failing-search-1' },
      );
      expect(JSON.parse(answer.text).errors[0].extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', requestId: 'failing-search-1' });
      const lines = stack.logs.map((line) => JSON.parse(line) as { msg: string; requestId?: string });
      expect(lines.filter(({ msg }) => msg === 'A request got an upstream failure')).toEqual([
        expect.objectContaining({ requestId: 'failing-search-1' }),
      ]);
    } finally {
      await stack.close();
    }
  });

  it('name the request of an unexpected error, which its answer only calls "Unexpected error."', async () => {
    const logs: string[] = [];
    const logger = createLogger('info', { write: (line: string) => logs.push(line) });
    const errorRequestIds = useErrorRequestIds();
    const yoga = createYoga<GatewayServerContext>({
      schema: createSchema({
        typeDefs: 'type Query { broken: String }',
        resolvers: { Query: { broken: () => (undefined as unknown as { x: string }).x } },
      }),
      plugins: [errorRequestIds.plugin],
      maskedErrors: { maskError: createErrorMasker(logger, errorRequestIds.requestIdOf), isDev: false },
      logging: false,
    });
    const answer = await yoga.fetch(
      'http://gateway.test/graphql',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ broken }' }) },
      { requestId: 'unexpected-1', execution: { record: () => {} } },
    );
    expect(((await answer.json()) as { errors: { message: string }[] }).errors[0]!.message).toBe('Unexpected error.');
    expect(logs.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ msg: 'Unexpected error while executing an operation', requestId: 'unexpected-1' }),
    ]);
  });
});
