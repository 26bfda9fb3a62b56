import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../schema/context.js';

/**
 * Adds what resolvers noted while still returning data: partial errors join
 * `errors`, warnings (such as stale data served because the upstream failed)
 * go to `extensions.warnings`. An answer with neither, and no errors of its
 * own, is marked reusable.
 */
export function useResponseNotes(): Plugin<GatewayContext> {
  return {
    onExecute() {
      return {
        onExecuteDone({ args, result, setResult }) {
          if (isAsyncIterable(result)) return;
          const { notes } = args.contextValue as GatewayContext;
          if (notes.errors.length === 0 && notes.warnings.length === 0) {
            notes.reusable = result.errors === undefined || result.errors.length === 0;
            return;
          }
          setResult({
            ...result,
            ...(notes.errors.length > 0 ? { errors: [...(result.errors ?? []), ...notes.errors] } : {}),
            ...(notes.warnings.length > 0
              ? { extensions: { ...result.extensions, warnings: [...notes.warnings] } }
              : {}),
          });
        },
      };
    },
  };
}
