import { encodeGlobalID } from '@pothos/plugin-relay';
import { type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';

interface NodeOptions {
  id?: { resolve?: GraphQLFieldResolver<unknown, unknown> };
}

/**
 * Gives every Node type's `id` a resolver that returns the global ID itself,
 * encoded as Pothos' relay plugin encodes it, where the plugin's is an async
 * function: a promise per object, which graphql-js then waits for object by
 * object before it can complete the list around them, a cost paid for every
 * company of every page (`npm run bench:compare` on the cold search shows
 * it). An id whose own resolver returns a promise keeps the plugin's.
 */
export function withSyncGlobalIds(schema: GraphQLSchema): GraphQLSchema {
  const node = schema.getType('Node');
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || !type.getInterfaces().some((implemented) => implemented === node)) continue;
    const resolveKey = (type.extensions.pothosOptions as NodeOptions | undefined)?.id?.resolve;
    const field = type.getFields().id;
    if (resolveKey === undefined || field?.resolve === undefined) continue;
    const resolveAsync = field.resolve;
    field.resolve = (parent, args, context, info) => {
      const key = resolveKey(parent, args, context, info);
      if (typeof (key as PromiseLike<unknown> | null)?.then === 'function') return resolveAsync(parent, args, context, info);
      return encodeGlobalID(type.name, String(key));
    };
  }
  return schema;
}
