import { GraphQLObjectType, GraphQLSchema, type GraphQLFieldResolver, defaultFieldResolver } from 'graphql';
import type { GatewayContext } from '../../../schema/context.js';
import type { NotesCheckpoint } from '../../../schema/response-notes.js';

/**
 * One request's execution that may be discarded and run again: what its root
 * fields gave, by response key, and the notes as they stood when the last of
 * them settled. Nested resolvers note only after their root field settles,
 * so rolling the notes back to that checkpoint forgets exactly theirs.
 */
export class Rerunnable {
  readonly outcomes = new Map<string, { value: unknown } | { error: unknown }>();
  settled: NotesCheckpoint;

  constructor(readonly context: GatewayContext) {
    this.settled = context.notes.checkpoint();
  }
}

/**
 * A copy of `schema` whose root fields, in a request run through a
 * Rerunnable, resolve once: run again, they give what they gave the first
 * time, a promise the same promise, without calling the upstream or noting
 * anything twice. Elsewhere they resolve as in `schema`.
 */
export function withMemoizedRoots(schema: GraphQLSchema, runs: WeakMap<object, Rerunnable>): GraphQLSchema {
  const query = schema.getQueryType();
  if (!query) return schema;
  const config = query.toConfig();
  const resolvingOnce = new GraphQLObjectType({
    ...config,
    fields: Object.fromEntries(
      Object.entries(config.fields).map(([name, field]) => [name, { ...field, resolve: memoized(field.resolve ?? defaultFieldResolver) }]),
    ),
  });
  const schemaConfig = schema.toConfig();
  // In its place among the types: introspection lists them in this order.
  return new GraphQLSchema({
    ...schemaConfig,
    query: resolvingOnce,
    types: schemaConfig.types.map((type) => (type === query ? resolvingOnce : type)),
  });

  function memoized(resolve: GraphQLFieldResolver<unknown, GatewayContext>): GraphQLFieldResolver<unknown, GatewayContext> {
    return (root, args, context, info) => {
      const run = runs.get(context);
      if (run === undefined) return resolve(root, args, context, info);
      const key = String(info.path.key);
      const known = run.outcomes.get(key);
      if (known !== undefined) {
        if ('error' in known) throw known.error;
        return known.value;
      }
      let value: unknown;
      try {
        value = resolve(root, args, context, info);
      } catch (error) {
        run.outcomes.set(key, { error });
        run.settled = context.notes.checkpoint();
        throw error;
      }
      if (isThenable(value)) {
        const noteSettled = () => {
          run.settled = context.notes.checkpoint();
        };
        value = Promise.resolve(value).then(
          (resolved) => {
            noteSettled();
            return resolved;
          },
          (error: unknown) => {
            noteSettled();
            throw error;
          },
        );
      } else {
        run.settled = context.notes.checkpoint();
      }
      run.outcomes.set(key, { value });
      return value;
    };
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
