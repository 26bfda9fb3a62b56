import type { GraphQLResolveInfo } from 'graphql';
import type { GatewayContext } from './context.js';

/** `resolve`, run in a span of its own where the context traces resolvers; otherwise called as it is. */
export function traced<Root, Args extends object, Result>(
  resolve: (root: Root, args: Args, context: GatewayContext, info: GraphQLResolveInfo) => Promise<Result>,
): (root: Root, args: Args, context: GatewayContext, info: GraphQLResolveInfo) => Promise<Result> {
  return (root, args, context, info) => {
    const { traceResolver } = context;
    if (traceResolver === undefined) return resolve(root, args, context, info);
    return traceResolver(info, args as Record<string, unknown>, () => resolve(root, args, context, info));
  };
}
