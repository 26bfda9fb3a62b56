import SchemaBuilder from '@pothos/core';
import RelayPlugin, { decodeGlobalID } from '@pothos/plugin-relay';
import { type GraphQLObjectType, type GraphQLResolveInfo, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import { withSyncGlobalIds } from '../../src/schema/sync-global-ids.js';

const info = {} as GraphQLResolveInfo;

/** The id field of `type` in `of`. */
const idOf = (of: typeof schema, type: string) => (of.getType(type) as GraphQLObjectType).getFields().id!;

describe('global IDs', () => {
  it('resolve at once for every Node type of the schema', () => {
    const nodeTypes = Object.values(schema.getTypeMap()).filter(
      (type) => isObjectType(type) && type.getInterfaces().some(({ name }) => name === 'Node'),
    );
    expect(nodeTypes.map(({ name }) => name)).toEqual(['Company']);
    const company = { jurisdiction: 'GB', companyNumber: '03000001' };
    const id = idOf(schema, 'Company').resolve!(company, {}, {}, info);
    expect(typeof id).toBe('string');
    expect(decodeGlobalID(id as string)).toEqual({ typename: 'Company', id: 'GB:03000001' });
  });

  it("are the IDs Pothos' relay plugin encodes, given at once instead of a promise later", async () => {
    const { schema: built } = pothosSchema(() => 'GB:03000001');
    const later = idOf(built, 'Thing').resolve!({}, {}, {}, info);
    expect(later).toBeInstanceOf(Promise);
    const now = idOf(withSyncGlobalIds(built), 'Thing').resolve!({}, {}, {}, info);
    expect(now).toBe(await later);
  });

  it("keep the plugin's resolver where the id's own is asynchronous", async () => {
    const { schema: built } = pothosSchema(async () => 'later');
    const schemaWithSyncIds = withSyncGlobalIds(built);
    const id = idOf(schemaWithSyncIds, 'Thing').resolve!({}, {}, {}, info);
    expect(id).toBeInstanceOf(Promise);
    expect(decodeGlobalID(await (id as Promise<string>))).toEqual({ typename: 'Thing', id: 'later' });
  });
});

/** A schema of one Node type, Thing, whose id resolves as `resolve` does, built as the gateway's is. */
function pothosSchema(resolve: () => string | Promise<string>) {
  const builder = new SchemaBuilder<{ DefaultFieldNullability: false }>({
    plugins: [RelayPlugin],
    defaultFieldNullability: false,
    relay: {},
  });
  const thing = builder.node(builder.objectRef<object>('Thing'), {
    id: { resolve },
    fields: (t) => ({ name: t.string({ resolve: () => 'x' }) }),
  });
  builder.queryType({ fields: (t) => ({ thing: t.field({ type: thing, resolve: () => ({}) }) }) });
  return { schema: builder.toSchema() };
}
