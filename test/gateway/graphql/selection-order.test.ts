import { readdirSync, readFileSync } from 'node:fs';
import { buildSchema, type DocumentNode, execute, Kind, parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCompanies } from '../../../src/lookup-service/index.js';
import { schema } from '../../../src/schema/index.js';
import * as generated from '../../generated/graphql.js';
import { selectionOrderProblems } from '../../support/selection-order.js';
import { startStack, type Stack } from '../../support/stack.js';

const COMPANY = fixtureCompanies.withPreviousNames;
const COMPANY_ID = Buffer.from(`Company:GB:${COMPANY.companyNumber}`).toString('base64');
const SEARCH = { q: 'ferncastle', jurisdiction: 'GB' };

/** Variables for each operation of test/operations/ and GraphiQL's example, by operation name. */
const VARIABLES: Record<string, Record<string, unknown>> = {
  SearchCompaniesExample: {},
  SearchCompanies: { ...SEARCH, pageSize: 5 },
  DashboardSearch: SEARCH,
  CompanyByNumber: { jurisdiction: 'GB', companyNumber: COMPANY.companyNumber },
  NodeById: { id: COMPANY_ID },
};

/** The operations the documents of test/generated/ hold, by name. */
const OPERATIONS = new Map(
  Object.values(generated as Record<string, unknown>)
    .filter((value): value is DocumentNode => (value as DocumentNode | null)?.kind === Kind.DOCUMENT)
    .flatMap((document) =>
      document.definitions.flatMap((definition) =>
        definition.kind === Kind.OPERATION_DEFINITION && definition.name ? [[definition.name.value, document] as const] : [],
      ),
    ),
);

const SEARCHED = 'searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: 3)';
const SEARCH_ARGS = '$q: String!, $jurisdiction: CountryCode!';

/** Selections of every form, each answered in the order it selects. */
const FORMS: [string, string, Record<string, unknown>][] = [
  [
    'aliases at every level, a field selected under two names',
    `query(${SEARCH_ARGS}) { found: ${SEARCHED} { count: totalCount results: edges { at: cursor company: node { key: id title: name id number: companyNumber } } } }`,
    SEARCH,
  ],
  [
    'named and inline fragments, one on the Node interface, spread between fields',
    `query(${SEARCH_ARGS}) { ${SEARCHED} { ...Page } }
     fragment Page on CompanyConnection { totalCount edges { node { companyNumber ... on Company { name } ...Identified status } cursor } }
     fragment Identified on Node { id }`,
    SEARCH,
  ],
  [
    '__typename at every level',
    `query(${SEARCH_ARGS}) { __typename ${SEARCHED} { __typename edges { node { id __typename name } __typename } } }`,
    SEARCH,
  ],
  [
    'a key selected again in a fragment: where it was first selected',
    `query(${SEARCH_ARGS}) { ${SEARCHED} { nodes { name ...Card id } } } fragment Card on Company { id status name avatar { initials } }`,
    SEARCH,
  ],
  [
    'two root fields, each calling the upstream',
    `query(${SEARCH_ARGS}, $number: String!) { ${SEARCHED} { nodes { id name } } company(jurisdiction: $jurisdiction, companyNumber: $number) { name id } }`,
    { ...SEARCH, number: COMPANY.companyNumber },
  ],
  [
    'nodes and edges both with ids, the ids first',
    `query(${SEARCH_ARGS}) { ${SEARCHED} { nodes { id name } edges { node { id companyNumber } } totalCount } }`,
    SEARCH,
  ],
  [
    'a node by id, its type name between fields',
    'query($id: ID!) { node(id: $id) { id __typename ... on Company { name } } }',
    { id: COMPANY_ID },
  ],
  [
    'a key selected twice, the first time skipped: where it is first included',
    `query(${SEARCH_ARGS}, $skip: Boolean!) { ${SEARCHED} { nodes { companyNumber @skip(if: $skip) id name companyNumber } } }`,
    { ...SEARCH, skip: true },
  ],
  [
    '@include and @skip on variables and literals',
    `query(${SEARCH_ARGS}, $withId: Boolean!, $skipName: Boolean = false) {
      ${SEARCHED} { edges { node { id @include(if: $withId) name @skip(if: $skipName) status @include(if: true) companyNumber @skip(if: true) } } }
    }`,
    { ...SEARCH, withId: true },
  ],
];

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

/** Sends `document` twice (executed, then from the response cache) and expects each answer's keys in selection order. */
async function expectInSelectionOrder(document: DocumentNode, variables: Record<string, unknown>) {
  for (let sent = 0; sent < 2; sent++) {
    const answer = await stack.post({ query: print(document), variables });
    expect(answer.status).toBe(200);
    const { data, errors } = JSON.parse(answer.text);
    expect(errors).toBeUndefined();
    const checked = selectionOrderProblems(schema, document, variables, data);
    expect(checked.problems).toEqual([]);
    // Companies were answered: a null or an empty list is in any order.
    expect(checked.objects).toBeGreaterThan(Object.keys(data).length);
    expect(Object.values(data)).not.toContain(null);
    expect(JSON.stringify(data)).not.toMatch(/"(edges|nodes)":\[\]/);
  }
}

describe('every answer lists its keys in the order the document selects them', () => {
  it('covers every operation of test/operations/ and GraphiQL example', () => {
    const inFiles = readdirSync(new URL('../../operations/', import.meta.url))
      .filter((file) => file.endsWith('.graphql'))
      .flatMap((file) =>
        parse(readFileSync(new URL(`../../operations/${file}`, import.meta.url), 'utf8')).definitions.flatMap((definition) =>
          definition.kind === Kind.OPERATION_DEFINITION ? [definition.name?.value] : [],
        ),
      );
    expect([...OPERATIONS.keys()].sort()).toEqual([...inFiles, 'SearchCompaniesExample'].sort());
    expect(Object.keys(VARIABLES).sort()).toEqual([...OPERATIONS.keys()].sort());
  });

  it.each([...OPERATIONS])('%s', async (name, document) => {
    await expectInSelectionOrder(document, VARIABLES[name]!);
  });

  it.each(FORMS)('%s', async (_, text, variables) => {
    await expectInSelectionOrder(parse(text), variables);
  });

  it('writes a partial answer as graphql-js writes one: errors first, then data', async () => {
    // The upstream sends the first result a name over its cap: that result is left out with an error, the rest answered.
    stack.lookup.knobs.mapResults = (results) =>
      results.map((result, index) => (index === 0 ? { ...result, name: 'n'.repeat(100_000) } : result));
    try {
      // A search no other test here makes: the upstream is asked, not the gateway's caches.
      const variables = { q: 'trading', jurisdiction: 'GB', pageSize: 5 };
      const answer = JSON.parse((await stack.post({ query: print(generated.SearchCompaniesDocument as DocumentNode), variables })).text);
      expect(Object.keys(answer)).toEqual(['errors', 'data']);
      expect(answer.errors[0].extensions.code).toBe('UPSTREAM_INVALID_FIELD');
      // graphql-js's own order for a result with an error.
      const resolved = await execute({
        schema: buildSchema('type Query { a: Int }'),
        document: parse('{ a }'),
        rootValue: {
          a: () => {
            throw new Error('x');
          },
        },
      });
      expect(Object.keys(resolved)).toEqual(['errors', 'data']);
    } finally {
      stack.lookup.knobs.mapResults = undefined;
    }
  });

  it('finds a company whose id comes after its name out of order: the check can fail', async () => {
    const document = generated.SearchCompaniesDocument as DocumentNode;
    const variables = VARIABLES.SearchCompanies!;
    const { data } = JSON.parse((await stack.post({ query: print(document), variables })).text);
    const { id, ...rest } = data.searchCompanies.edges[0].node;
    data.searchCompanies.edges[0].node = { ...rest, id };
    expect(selectionOrderProblems(schema, document, variables, data).problems).toEqual([
      expect.stringMatching(/^data\.searchCompanies\.edges\[0\]\.node: keys name, .*, id; selected id, name, /),
    ]);
  });
});
