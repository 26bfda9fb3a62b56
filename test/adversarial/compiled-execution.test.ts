import { describe, it } from 'vitest';
import { comparedGateways, expectCompiled, expectNeverCompiled, operation } from '../support/compared-gateways.js';

const gateways = comparedGateways();

const SEARCHED = 'searchCompanies(q: $q, jurisdiction: GB, pageSize: 2)';
const SEARCH = { q: 'ferncastle' };

describe('a client trying to tell compiled execution from graphql-js', () => {
  it.each([
    ['a name', `query($q: String!) { ${SEARCHED} { edges { node { __proto__: name id } } } }`],
    ['__typename', `query($q: String!) { ${SEARCHED} { __proto__: __typename totalCount } }`],
  ])('gets a field aliased __proto__ (%s) back, which graphql-jit loses: left to graphql-js', async (_, document) => {
    expectNeverCompiled(await gateways.expectSameAnswers(operation(document, SEARCH)));
  });

  it('gets the schema types by introspection in the schema order, Query where it stands, not last', async () => {
    expectCompiled(await gateways.expectSameAnswers(operation('{ __schema { queryType { name } types { name kind } } }', {})));
  });
});
