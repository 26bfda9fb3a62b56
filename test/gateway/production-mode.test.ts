import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { optionsOf } from '../../src/gateway/options-from-settings.js';
import { ExecutionRecord } from '../../src/gateway/response-cache/execution-record.js';
import { createLogger } from '../../src/gateway/logger.js';
import { createGateway } from '../../src/gateway/graphql/yoga.js';
import { DocumentCache } from '../../src/gateway/graphql/document-cache.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { messagesOf, send } from '../support/http.js';
import { startStack, type Stack } from '../support/stack.js';
import { refusalBody } from '../support/refusal.js';

/** The settings an environment gives, as startStack takes them. */
function settings(env: Record<string, string>) {
  return { ...readConfig(env), port: 0, rateLimitPerMinute: 0 };
}

const INTROSPECTION = '{ __schema { queryType { name } } }';
const TYPO = '{ searchCompanie(q: "a", jurisdiction: "GB") { totalCount } }';

describe('production mode (NODE_ENV=production)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: settings({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'true' }) });
  });
  afterAll(() => stack.close());
  afterEach(() => {
    process.env.NODE_ENV = 'test';
  });

  it('serves no GraphiQL: a browser gets 404 GRAPHIQL_UNAVAILABLE saying it is off and how to turn it on, not the page', async () => {
    const { status, headers, text } = await send(stack.gateway.graphqlUrl, { headers: { accept: 'text/html' } });
    expect(status).toBe(404);
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(text)).toEqual(
      refusalBody(
        'GRAPHIQL_UNAVAILABLE',
        'GraphiQL is off here (GRAPHIQL=false, the default with NODE_ENV=production); its operators can turn it on with GRAPHIQL=true. GraphQL requests are answered at this address with Accept: application/json',
      ),
    );
  });

  it('refuses introspection, but not __typename', async () => {
    const refused = await stack.post({ query: INTROSPECTION });
    expect(refused.status).toBe(400);
    expect(messagesOf(refused.text)).toEqual([
      'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
      'GraphQL introspection has been disabled, but the requested query contained the field "queryType".',
    ]);
    expect(stack.lookup.counters.searchRequests).toBe(0);
    expect(JSON.parse((await stack.post({ query: '{ __typename }' })).text)).toEqual({ data: { __typename: 'Query' } });
  });

  it('gives no field suggestions', async () => {
    const { status, text } = await stack.post({ query: TYPO });
    expect(status).toBe(400);
    expect(messagesOf(text)).toEqual(['Cannot query field "searchCompanie" on type "Query". [Suggestion hidden]']);
  });

  it('masks an unexpected error, with no stack trace or original message, even when NODE_ENV=development is in the process environment', async () => {
    process.env.NODE_ENV = 'development';
    // A bug inside the gateway: no real upstream can make one, so the client is a stand-in that throws.
    const broken = {
      searchPage: () => {
        throw new TypeError('internal detail at src/upstream/client.ts:42');
      },
    } as unknown as UpstreamClient;
    const { graphql, limits } = optionsOf(readConfig({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'true' })).gateway;
    const gateway = createGateway({
      upstream: broken,
      limits: { maxQueryLength: 200 },
      requestDeadlineMs: 1_000,
      logger: createLogger('silent'),
      protection: { ...graphql, ...limits },
      documents: new DocumentCache(1024 * 1024),
    });
    const server = createServer((request, response) => void gateway(request, response, { execution: new ExecutionRecord() }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { text } = await send(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: '{ searchCompanies(q: "holdings", jurisdiction: GB) { totalCount } }' }),
      });
      expect(JSON.parse(text)).toEqual({
        data: null,
        errors: [
          {
            message: "Unexpected error; try again later, and tell the gateway's operators if it keeps happening.",
            locations: [{ line: 1, column: 3 }],
            path: ['searchCompanies'],
            extensions: { code: 'INTERNAL_SERVER_ERROR' },
          },
        ],
      });
      expect(text).not.toMatch(/internal detail|client\.ts|stack/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('passes a deliberate error on as it is, with no stack trace, even when NODE_ENV=development is in the process environment', async () => {
    process.env.NODE_ENV = 'development';
    const { text } = await stack.post({ query: '{ node(id: "not-an-id") { id } }' });
    expect(JSON.parse(text)).toEqual({
      data: { node: null },
      errors: [
        {
          message: 'id: is not a global ID issued by this gateway',
          locations: [{ line: 1, column: 3 }],
          path: ['node'],
          extensions: { requestId: expect.any(String), code: 'BAD_USER_INPUT', argument: 'id' },
        },
      ],
    });
    expect(text).not.toMatch(/stack|at .*\.(ts|js):\d+/);
  });

  it('serves GraphiQL and introspection when GRAPHIQL=true and INTROSPECTION=true', async () => {
    const open = await startStack({
      gateway: settings({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'true', GRAPHIQL: 'true', INTROSPECTION: 'true' }),
    });
    try {
      const page = await send(open.gateway.graphqlUrl, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.text).toContain('<title>Company search</title>');
      expect(JSON.parse((await open.post({ query: INTROSPECTION })).text)).toEqual({
        data: { __schema: { queryType: { name: 'Query' } } },
      });
      expect(messagesOf((await open.post({ query: TYPO })).text)[0]).toContain('[Suggestion hidden]');
    } finally {
      await open.close();
    }
  });
});

describe('development mode (the default)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: settings({}) });
  });
  afterAll(() => stack.close());

  it('serves GraphiQL and introspection, and suggests fields', async () => {
    expect((await send(stack.gateway.graphqlUrl, { headers: { accept: 'text/html' } })).status).toBe(200);
    expect(JSON.parse((await stack.post({ query: INTROSPECTION })).text)).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    expect(messagesOf((await stack.post({ query: TYPO })).text)[0]).toBe(
      'Cannot query field "searchCompanie" on type "Query". Did you mean "searchCompanies"?',
    );
  });

  it('turns GraphiQL and introspection off with GRAPHIQL=false and INTROSPECTION=false', async () => {
    const closed = await startStack({ gateway: settings({ GRAPHIQL: 'false', INTROSPECTION: 'false' }) });
    try {
      const page = await send(closed.gateway.graphqlUrl, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(404);
      expect(messagesOf(page.text)).toEqual([
        'GraphiQL is off here (GRAPHIQL=false); its operators can turn it on with GRAPHIQL=true. GraphQL requests are answered at this address with Accept: application/json',
      ]);
      expect((await closed.post({ query: INTROSPECTION })).status).toBe(400);
    } finally {
      await closed.close();
    }
  });
});
