import { serverAudits, type AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { startStack, type Stack } from '../../support/stack.js';

let stack: Stack;
let production: Stack;

beforeAll(async () => {
  // Every setting as NODE_ENV=production makes it, on a port of its own.
  const { port: _port, host: _host, ...settings } = readConfig({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'true' });
  [stack, production] = await Promise.all([startStack(), startStack({ gateway: { ...settings, logLevel: 'debug' } })]);
  expect(settings).toMatchObject({ nodeEnv: 'production', graphiql: false, introspection: false, allowAnonymous: true });
});
afterAll(() => Promise.all([stack.close(), production.close()]));

/** What a failed audit says, with the answer the gateway gave, so a failure explains itself. */
async function explain(result: AuditResult): Promise<string> {
  if (result.status === 'ok') return 'ok';
  return `${result.status}: ${result.reason}; answered ${result.response.status} ${await result.response.text()}`;
}

describe.each([
  ['default settings', () => stack],
  ['production settings', () => production],
])('GraphQL over HTTP (graphql-http server audits, %s)', (_, gateway) => {
  const audits = serverAudits({ url: () => gateway().gateway.graphqlUrl, fetchFn: fetch });

  it('has every MUST and SHOULD audit to run', () => {
    expect(audits.filter((audit) => audit.name.startsWith('MUST')).length).toBe(13);
    expect(audits.filter((audit) => audit.name.startsWith('SHOULD')).length).toBe(23);
  });

  // MAY audits pass too; they are kept so that a change losing one shows.
  it.each(audits.map((audit) => [audit.name, audit] as const))('%s', async (_, audit) => {
    const result = await audit.fn();
    expect(await explain(result)).toBe('ok');
  });
});

describe('introspection off (production settings)', () => {
  it('answers __type with null for every name, as if no such type existed, and refuses __schema', async () => {
    const lookups = await production.post({
      query: '{ __type(name: "Company") { name fields { name } } query: __type(name: "Query") { name } }',
    });
    expect(lookups.status).toBe(200);
    expect(JSON.parse(lookups.text)).toEqual({ data: { __type: null, query: null } });
    const inFragment = await production.post({
      query: '{ ...Lookups } fragment Lookups on Query { ... on Query { t: __type(name: "Company") { name } } }',
    });
    expect(JSON.parse(inFragment.text)).toEqual({ data: { t: null } });
    expect(JSON.parse((await stack.post({ query: '{ __type(name: "Company") { name } }' })).text)).toEqual({
      data: { __type: { name: 'Company' } },
    });

    const schema = await production.post({ query: '{ __typename __schema { queryType { name } } }' });
    expect(schema.status).toBe(400);
    const spread = await production.post({
      query: '{ __type(name: "Company") { ...Fields } } fragment Fields on __Type { fields { name } }',
    });
    expect(spread.status).toBe(400);
    expect(JSON.parse(spread.text)).toEqual({
      errors: [
        {
          message: 'GraphQL introspection has been disabled, but the requested query contained the field "fields".',
          locations: [{ line: 1, column: 71 }],
          extensions: { requestId: expect.any(String), code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
  });
});
