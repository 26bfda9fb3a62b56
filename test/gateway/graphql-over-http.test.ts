import { serverAudits, type AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

/** What a failed audit says, with the answer the gateway gave, so a failure explains itself. */
async function explain(result: AuditResult): Promise<string> {
  if (result.status === 'ok') return 'ok';
  return `${result.status}: ${result.reason}; answered ${result.response.status} ${await result.response.text()}`;
}

describe('GraphQL over HTTP (graphql-http server audits, default settings)', () => {
  const audits = serverAudits({ url: () => stack.gateway.graphqlUrl, fetchFn: fetch });

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
