import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/stack.js';
import { expectNoUpstreamCall } from '../../support/upstream-calls.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    gateway: {
      maxDepth: 4,
      maxAliases: 6,
      maxDirectives: 2,
      maxTokens: 200,
      maxDocumentLength: 1_000,
      maxUpstreamSearches: 3,
      rateLimitPerMinute: 0,
    },
  });
});
afterAll(() => stack.close());
beforeEach(() => stack.lookup.counters.reset());

async function expectRefused(body: unknown, message: string, code?: string) {
  const { status, text } = await stack.post(body);
  expect(status).toBe(400);
  const parsed = JSON.parse(text);
  expect(parsed.data).toBeUndefined();
  expect(parsed.errors).toHaveLength(1);
  expect(parsed.errors[0].message).toBe(message);
  if (code) expect(parsed.errors[0].extensions).toEqual({ code, requestId: expect.any(String) });
  expectNoUpstreamCall(stack);
}

const search = (q: string, alias = '') => `${alias}searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount }`;

describe('operation limits refuse before any upstream call', () => {
  it('refuses a query nested deeper than MAX_DEPTH', () =>
    expectRefused(
      { query: '{ searchCompanies(q: "a", jurisdiction: "GB") { edges { node { address { formatted } previousNames { name } } } } }' },
      'Syntax Error: Query depth limit of 4 exceeded, found 5.',
      'GRAPHQL_VALIDATION_FAILED',
    ));

  it('does not count fragments as nesting', async () => {
    const { status, text } = await stack.post({
      query:
        '{ ...Q } fragment Q on Query { searchCompanies(q: "zebra quantum", jurisdiction: "GB") { ...C } } fragment C on CompanyConnection { edges { node { name } } }',
    });
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ data: { searchCompanies: { edges: [{ node: { name: 'Zebra Quantum Fisheries Ltd' } }] } } });
  });

  it('refuses more aliases than MAX_ALIASES, aliases of __typename aside', async () => {
    const fields = Array.from({ length: 7 }, (_, i) => `a${i}: company(jurisdiction: "GB", companyNumber: "1") { name }`);
    await expectRefused(
      { query: `{ ${fields.join(' ')} }` },
      'Syntax Error: Aliases limit of 6 exceeded, found 7.',
      'GRAPHQL_VALIDATION_FAILED',
    );
    const typenames = Array.from({ length: 10 }, (_, i) => `t${i}: __typename`);
    expect((await stack.post({ query: `{ ${typenames.join(' ')} }` })).status).toBe(200);
  });

  it('refuses more directives than MAX_DIRECTIVES', () =>
    expectRefused(
      { query: '{ a: __typename @skip(if: false) b: __typename @include(if: true) c: __typename @skip(if: false) }' },
      'Syntax Error: Directives limit of 2 exceeded, found 3.',
      'GRAPHQL_VALIDATION_FAILED',
    ));

  it('refuses more tokens than MAX_TOKENS', () =>
    expectRefused({ query: `{ ${'a '.repeat(200)}}` }, 'Syntax Error: Token limit of 200 exceeded.', 'GRAPHQL_PARSE_FAILED'));

  it('refuses a document longer than MAX_DOCUMENT_LENGTH, even one token long', () =>
    expectRefused(
      { query: `{ searchCompanies(q: "${'x'.repeat(1_000)}", jurisdiction: "GB") { totalCount } }` },
      'The GraphQL document is 1061 characters long; at most 1000 are accepted. Send a shorter one',
      'DOCUMENT_TOO_LARGE',
    ));
});

describe('the upstream search budget', () => {
  const overBudget = (searches: number) =>
    `This operation would make ${searches} distinct upstream searches; at most 3 are allowed per operation (each searchCompanies, company or node field with different arguments counts). Split it into several operations`;

  it('refuses more distinct searchCompanies, company and node fields than MAX_UPSTREAM_SEARCHES', () =>
    expectRefused(
      {
        query: `{ ${search('a', 'a: ')} ${search('b', 'b: ')} company(jurisdiction: "GB", companyNumber: "1") { name } node(id: "x") { id } }`,
      },
      overBudget(4),
      'UPSTREAM_SEARCH_BUDGET_EXCEEDED',
    ));

  it('counts identical fields with identical arguments once, whatever the alias or argument order', async () => {
    const { status, text } = await stack.post({
      query: `{ a: searchCompanies(q: "zebra", jurisdiction: "GB") { totalCount } b: searchCompanies(jurisdiction: "GB", q: "zebra") { totalCount } c: searchCompanies(q: "zebra", jurisdiction: "GB") { totalCount } d: searchCompanies(q: "zebra", jurisdiction: "GB") { totalCount } }`,
    });
    expect(status).toBe(200);
    const { totalCount } = JSON.parse(text).data.a;
    expect(JSON.parse(text)).toEqual({ data: { a: { totalCount }, b: { totalCount }, c: { totalCount }, d: { totalCount } } });
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });

  it('resolves variables before counting: equal values are one search, different values several', async () => {
    const query = `query ($x: String!, $y: String!) { a: searchCompanies(q: $x, jurisdiction: "GB") { totalCount } b: searchCompanies(q: $y, jurisdiction: "GB") { totalCount } c: searchCompanies(q: "third", jurisdiction: "GB") { totalCount } d: searchCompanies(q: "fourth", jurisdiction: "GB") { totalCount } }`;
    await expectRefused({ query, variables: { x: 'first', y: 'second' } }, overBudget(4), 'UPSTREAM_SEARCH_BUDGET_EXCEEDED');
    const { status } = await stack.post({ query, variables: { x: 'first', y: 'first' } });
    expect(status).toBe(200);
  });

  it('counts fields inside fragments, and leaves out fields skipped by @skip or @include', async () => {
    const query = `query ($skip: Boolean!) { ...A ... on Query { ${search('c', 'c: ')} } d: searchCompanies(q: "d", jurisdiction: "GB") @skip(if: $skip) { totalCount } } fragment A on Query { ${search('a', 'a: ')} ${search('b', 'b: ')} }`;
    await expectRefused({ query, variables: { skip: false } }, overBudget(4), 'UPSTREAM_SEARCH_BUDGET_EXCEEDED');
    const { status } = await stack.post({ query, variables: { skip: true } });
    expect(status).toBe(200);
  });

  it('counts a fragment skipped where it is spread once and included where it is spread again', () =>
    expectRefused(
      {
        query: `{ ...A @skip(if: true) ...B } fragment A on Query { ${search('a', 'a: ')} ${search('b', 'b: ')} } fragment B on Query { ...A ${search('c', 'c: ')} ${search('d', 'd: ')} }`,
      },
      overBudget(4),
      'UPSTREAM_SEARCH_BUDGET_EXCEEDED',
    ));

  it('allows exactly MAX_UPSTREAM_SEARCHES', async () => {
    const { status, text } = await stack.post({ query: `{ ${search('x1', 'a: ')} ${search('x2', 'b: ')} ${search('x3', 'c: ')} }` });
    expect(status).toBe(200);
    expect(JSON.parse(text).errors).toBeUndefined();
    expect(stack.lookup.counters.searchRequests).toBe(3);
  });
});
