import { type GraphQLError, Kind } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { BadVariableValueError } from '../../errors/request-errors.js';

/**
 * Codes the errors graphql-js reports for variable values it cannot coerce
 * (`$q` given a number, a required variable left out) as BAD_USER_INPUT, like
 * a bad argument, and names the variable in `extensions.variable`; errors of
 * the gateway's own scalars already carry the code and get the name too. Such
 * errors stop execution before it starts, so their result has no `data`, and
 * each names its variable's definition. Every error of such a result is a
 * request error, answered 400, as Yoga's own executor marks them.
 */
export function useVariableErrorCodes(): Plugin {
  return {
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result) || 'data' in result || !result.errors?.length) return;
          setResult({
            ...result,
            errors: result.errors.map((error) => {
              const variable = variableOf(error);
              return withStatus400(variable === undefined ? error : new BadVariableValueError(error, variable));
            }),
          });
        },
      };
    },
  };
}

/** The variable a coercion error is about, unless the error already names it. */
function variableOf(error: GraphQLError): string | undefined {
  const node = error.nodes?.[0];
  if (node?.kind !== Kind.VARIABLE_DEFINITION || error.extensions.variable !== undefined) return undefined;
  return node.variable.name.value;
}

/** The error, its class kept, with the status Yoga answers it with (`extensions.http`, which Yoga leaves out of the answer). */
function withStatus400(error: GraphQLError): GraphQLError {
  const http = error.extensions.http as Record<string, unknown> | undefined;
  Object.defineProperty(error, 'extensions', { value: { ...error.extensions, http: { ...http, status: 400 } } });
  return error;
}
