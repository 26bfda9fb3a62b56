import { type ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayServerContext } from './server-context.js';

/**
 * Gives every error of an answer the request's id in `extensions.requestId`,
 * the one in its `x-request-id` header and log lines, so a client reporting
 * an error names the request. Answers without errors are left as they are;
 * only those may be reused by the response cache, so no cached answer carries
 * another request's id.
 */
export function useRequestId(): Plugin<Record<string, unknown>, GatewayServerContext> {
  return {
    onResultProcess({ result, setResult, serverContext }) {
      const { requestId } = serverContext;
      if (requestId === undefined || isAsyncIterable(result)) return;
      // Most answers have no error: they cost two property reads, no array.
      if (Array.isArray(result)) {
        if (result.some(hasErrors)) setResult(result.map((one) => withRequestIds(one, requestId)));
      } else if (hasErrors(result)) {
        setResult(withRequestIds(result, requestId));
      }
    },
  };
}

function hasErrors(result: ExecutionResult): boolean {
  return (result.errors?.length ?? 0) > 0;
}

function withRequestIds(result: ExecutionResult, requestId: string): ExecutionResult {
  return hasErrors(result) ? { ...result, errors: result.errors!.map((error) => withRequestId(error, requestId)) } : result;
}

function withRequestId(error: GraphQLError, requestId: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, requestId },
  });
}
