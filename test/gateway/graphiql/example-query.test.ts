/**
 * GraphiQL opens with an example query that shows off every part of a
 * company (gateway/graphiql/graphiql-example.ts): whoever explores the schema
 * sees each field from the first run. A field added to Company and not to the
 * example fails here.
 */
import { isObjectType, Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { GRAPHIQL_EXAMPLE_QUERY } from '../../../src/gateway/graphiql/graphiql-example.js';
import { schema } from '../../../src/schema/index.js';
import { selectionAt } from '../../support/expected.js';

describe("GraphiQL's example query", () => {
  it('selects every field of a company', () => {
    const company = schema.getType('Company');
    if (!isObjectType(company)) throw new Error('The schema has no Company object type');
    const node = selectionAt(parse(GRAPHIQL_EXAMPLE_QUERY), ['searchCompanies', 'edges', 'node']);
    const selected = new Set(node.selections.map((selection) => (selection.kind === Kind.FIELD ? selection.name.value : '')));
    expect(Object.keys(company.getFields()).filter((field) => !selected.has(field))).toEqual([]);
  });
});
