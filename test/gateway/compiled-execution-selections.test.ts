import { describe, expect, it } from 'vitest';
import { fixtureCompaniesByStatus } from '../../src/lookup-service/index.js';
import { SearchCompaniesDocument } from '../generated/graphql.js';
import { type Compared, comparedGateways, expectCompiled, expectNeverCompiled, operation } from '../support/compared-gateways.js';

const gateways = comparedGateways();

const SEARCH = { q: 'ferncastle', j: 'GB' };
const NO_RESULTS = { q: 'no such word anywhere', j: 'GB' };
const COMPANY = { j: 'GB', n: fixtureCompaniesByStatus.INACTIVE.companyNumber };
const SEARCH_ARGS = '$q: String!, $j: CountryCode!';
const SEARCHED = 'searchCompanies(q: $q, jurisdiction: $j, pageSize: 5)';
const EMPTY_FIRST = `query(${SEARCH_ARGS}) { ${SEARCHED} { edges { node { id name } } totalCount } }`;

describe('graphql-jit answers selections of every form byte for byte as graphql-js', () => {
  it.each<[string, string, Record<string, unknown>, (compared: Compared) => void]>([
    [
      'aliases at every level',
      `query(${SEARCH_ARGS}) { found: ${SEARCHED} { count: totalCount results: edges { at: cursor company: node { key: id title: name } } } }`,
      SEARCH,
      expectCompiled,
    ],
    [
      'named and inline fragments, the id in a fragment on the Node interface',
      `query(${SEARCH_ARGS}) { ${SEARCHED} { ...Page } }
       fragment Page on CompanyConnection { totalCount edges { node { ... on Company { name } ...Identified companyNumber } cursor } }
       fragment Identified on Node { id }`,
      SEARCH,
      expectCompiled,
    ],
    [
      '__typename at every level',
      `query(${SEARCH_ARGS}) { __typename ${SEARCHED} { __typename edges { __typename node { __typename id name } } } }`,
      SEARCH,
      expectCompiled,
    ],
    [
      'the asynchronous id selected last already',
      `query(${SEARCH_ARGS}) { ${SEARCHED} { edges { node { name id } } } }`,
      SEARCH,
      expectCompiled,
    ],
    [
      'nodes without id beside edges with one',
      `query(${SEARCH_ARGS}) { ${SEARCHED} { nodes { name } edges { node { id } } totalCount } }`,
      SEARCH,
      expectCompiled,
    ],
    [
      // Which of the two lists is written first is which settles first: left to graphql-js.
      'nodes and edges both with ids',
      `query(${SEARCH_ARGS}) { ${SEARCHED} { nodes { id } edges { node { id } } } }`,
      SEARCH,
      expectNeverCompiled,
    ],
    [
      'two root fields',
      `query(${SEARCH_ARGS}, $n: String!) { company(jurisdiction: $j, companyNumber: $n) { name } ${SEARCHED} { totalCount } }`,
      { ...SEARCH, ...COMPANY },
      expectNeverCompiled,
    ],
    [
      'a root field after __typename',
      'query($j: CountryCode!, $n: String!) { __typename company(jurisdiction: $j, companyNumber: $n) { id name } }',
      COMPANY,
      expectCompiled,
    ],
    [
      'a node by id, its type name first',
      'query($id: ID!) { node(id: $id) { __typename ... on Company { name } id } }',
      { id: Buffer.from(`Company:GB:${COMPANY.n}`).toString('base64') },
      expectCompiled,
    ],
    // An empty list completes at once: the edges stay before totalCount. With results they come after it.
    ['no results: an empty list of edges', EMPTY_FIRST, NO_RESULTS, expectCompiled],
    ['results: edges of companies with ids', EMPTY_FIRST, SEARCH, expectCompiled],
  ])('%s', async (_, document, variables, answered) => {
    answered(await gateways.expectSameAnswers(operation(document, variables)));
  });

  it.each([
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ])('@include(if: %s) on the id and the total, @skip(if: %s) on the name', async (withId, skipName) => {
    const document = `query(${SEARCH_ARGS}, $withId: Boolean!, $skipName: Boolean!) {
      ${SEARCHED} { edges { node { name @skip(if: $skipName) id @include(if: $withId) companyNumber } } totalCount @include(if: $withId) }
    }`;
    expectCompiled(await gateways.expectSameAnswers(operation(document, { ...SEARCH, withId, skipName })));
  });

  it.each([true, false])(
    'a key selected twice, the first time under @skip(if: %s), is left to graphql-js: graphql-jit writes it where it is first selected',
    async (skipFirst) => {
      const document = `query(${SEARCH_ARGS}, $skipFirst: Boolean!) {
        ${SEARCHED} { edges { node { companyNumber @skip(if: $skipFirst) id name companyNumber } } }
      }`;
      expectNeverCompiled(await gateways.expectSameAnswers(operation(document, { ...SEARCH, skipFirst })));
    },
  );

  it('a fragment spread twice, the first time under @skip, is left to graphql-js', async () => {
    const document = `query(${SEARCH_ARGS}, $skip: Boolean!) {
      ${SEARCHED} { edges { node { ...Named @skip(if: $skip) id ...Named } } }
    }
    fragment Named on Company { name }`;
    expectNeverCompiled(await gateways.expectSameAnswers(operation(document, { ...SEARCH, skip: true })));
  });
});

describe('a failing upstream with compiled execution', () => {
  const CARD_SEARCH = { q: 'ferncastle', jurisdiction: 'GB', pageSize: 50 };

  /**
   * Compiles the card query on the compiling gateway (searching `warmUp`),
   * then sends it for `q` once to each gateway with the upstream failing `times`.
   */
  async function searchWithUpstreamFailing(times: number, q: string, warmUp = 'ferncastle') {
    expectCompiled(await gateways.expectSameAnswers(operation(SearchCompaniesDocument, { ...CARD_SEARCH, q: warmUp })));
    const stacks = [gateways.compiled, gateways.reference];
    for (const stack of stacks) {
      stack.lookup.counters.reset();
      stack.lookup.knobs.failSearch({ status: 503 }, times);
    }
    const compared = await gateways.expectSameAnswers(operation(SearchCompaniesDocument, { ...CARD_SEARCH, q }), {}, 1);
    const upstreamCalls = stacks.map((stack) => stack.lookup.counters.searchRequests);
    for (const stack of stacks) stack.lookup.knobs.clearFaults();
    return { compared, upstreamCalls };
  }

  it('answers a search the upstream fails every time as graphql-js does, calling the upstream as often', async () => {
    const { compared, upstreamCalls } = await searchWithUpstreamFailing(10, 'ferncastle dormant');
    expect(JSON.parse(compared.text)).toMatchObject({ data: null, errors: [{ path: ['searchCompanies'] }] });
    expect(compared.answeredBy).toEqual({ compiled: 0, 'graphql-js': 1 });
    const [compiledCalls, referenceCalls] = upstreamCalls;
    expect(referenceCalls).toBeGreaterThan(1); // the retries too
    expect(compiledCalls).toBe(referenceCalls);
  });

  it('answers a search whose retry gets past a 503 compiled, calling the upstream as often', async () => {
    const { compared, upstreamCalls } = await searchWithUpstreamFailing(1, 'ferncastle liquidation');
    expect(compared.answeredBy).toEqual({ compiled: 1, 'graphql-js': 0 });
    expect(upstreamCalls).toEqual([2, 2]);
  });

  it('answers a search served stale because the upstream failed compiled, with the warning', async () => {
    const { compared, upstreamCalls } = await searchWithUpstreamFailing(10, 'ferncastle', 'ferncastle');
    expect(JSON.parse(compared.text)).toMatchObject({ data: { searchCompanies: { stale: true } }, extensions: { warnings: [{}] } });
    expect(compared.answeredBy).toEqual({ compiled: 1, 'graphql-js': 0 });
    expect(upstreamCalls[0]).toBe(upstreamCalls[1]);
  });
});
