import { getOperationAST } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../../schema/context.js';
import type { GatewayServerContext } from './server-context.js';

/**
 * Adds what resolvers noted while still returning data: partial errors join
 * `errors`, warnings (such as stale data served because the upstream failed)
 * go to `extensions.warnings`. Each operation's outcome goes to the request's
 * execution observer (the response cache's record), which decides whether the answer may be reused.
 */
export function useResponseNotes(): Plugin<GatewayContext & GatewayServerContext> {
  return {
    onExecute() {
      return {
        onExecuteDone({ args, result, setResult }) {
          if (isAsyncIterable(result)) return;
          const { notes, execution } = args.contextValue as GatewayContext & GatewayServerContext;
          execution.record(notes, (result.errors?.length ?? 0) > 0, getOperationAST(args.document, args.operationName)?.operation);
          if (notes.errors.length === 0 && notes.warnings.length === 0) return;
          const { errors, ...rest } = result;
          const allErrors = notes.errors.length > 0 ? [...(errors ?? []), ...notes.errors] : errors;
          // `errors` first, as graphql-js writes a result with errors (the specification suggests it, to make them plain to see).
          setResult({
            ...(allErrors ? { errors: allErrors } : {}),
            ...rest,
            ...(notes.warnings.length > 0 ? { extensions: { ...result.extensions, warnings: [...notes.warnings] } } : {}),
          });
        },
      };
    },
  };
}
