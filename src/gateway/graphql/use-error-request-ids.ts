import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayServerContext } from './server-context.js';

/** The request id of an error an execution ended with, for the log line of the error masker, which Yoga gives no request. */
export type ErrorRequestIds = (error: unknown) => string | undefined;

/**
 * Notes, for each error an execution ends with, the id of the request it came
 * from, so that the masker's log line of an unexpected error names the
 * request whose answer says "Unexpected error.". Runs before Yoga's masking:
 * its plugin comes after every plugin given to createYoga.
 */
export function useErrorRequestIds(): { plugin: Plugin<Record<string, unknown>, GatewayServerContext>; requestIdOf: ErrorRequestIds } {
  const requestIds = new WeakMap<object, string>();
  // One hook object for every execution: the request id is read from the arguments it is given, not captured per request.
  const afterExecution = {
    onExecuteDone({ args, result }: { args: { contextValue: unknown }; result: unknown }) {
      const { requestId } = args.contextValue as Partial<GatewayServerContext>;
      const { errors } = result as { errors?: readonly GraphQLError[] };
      if (requestId === undefined || errors === undefined) return;
      for (const error of errors) requestIds.set(error.originalError ?? error, requestId);
    },
  };
  return {
    requestIdOf: (error) => (typeof error === 'object' && error !== null ? requestIds.get(error) : undefined),
    plugin: { onExecute: () => afterExecution },
  };
}
