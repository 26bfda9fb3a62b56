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

  it('gets the error graphql-js gives for a variable named $__proto__, which graphql-jit reads', async () => {
    const document = `query($q: String!, $__proto__: Boolean!) { ${SEARCHED} { totalCount @skip(if: $__proto__) edges { cursor } } }`;
    // JSON.parse keeps a "__proto__" key as the variable; an object literal would make it the prototype.
    const variables = JSON.parse('{"q": "ferncastle", "__proto__": true}');
    expectNeverCompiled(await gateways.expectSameAnswers(operation(document, variables)));
  });

  it('gets the schema types by introspection in the schema order, Query where it stands, not last', async () => {
    expectCompiled(await gateways.expectSameAnswers(operation('{ __schema { queryType { name } types { name kind } } }', {})));
  });
});
