import { readFileSync } from 'node:fs';
import { getNamedType, isEnumType, isInputObjectType, isInterfaceType, isObjectType, lexicographicSortSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';

describe('schema', () => {
  it('matches the committed schema.graphql', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(`${printSchema(lexicographicSortSchema(schema))}\n`);
  });

  it('describes every type, field, argument and enum value of its own', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : []) {
            if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
          }
        }
      }
      if (isEnumType(type)) {
        for (const value of type.getValues()) if (!value.description) missing.push(`${type.name}.${value.name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('exposes searchCompanies with the Relay connection shape', () => {
    const field = schema.getQueryType()?.getFields().searchCompanies;
    expect(String(field?.type)).toBe('CompanyConnection!');
    expect(
      field?.args.map((arg) => `${arg.name}: ${String(arg.type)}${arg.defaultValue === undefined ? '' : ` = ${String(arg.defaultValue)}`}`),
    ).toEqual([
      'q: String!',
      'jurisdiction: CountryCode!',
      'pageSize: Int = 20',
      'first: Int',
      'after: String',
      'last: Int',
      'before: String',
    ]);
    const connection = getNamedType(field!.type);
    if (!isObjectType(connection)) throw new Error('CompanyConnection is not an object type');
    expect(Object.fromEntries(Object.values(connection.getFields()).map((f) => [f.name, String(f.type)]))).toEqual({
      edges: '[CompanyEdge!]!',
      nodes: '[Company!]!',
      pageInfo: 'PageInfo!',
      totalCount: 'Int!',
      reachableCount: 'Int!',
      fetchedAt: 'DateTime!',
      stale: 'Boolean!',
    });
  });
});
