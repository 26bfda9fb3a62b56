import { type GraphQLError, Kind } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { BadVariableValueError } from '../../errors/request-errors.js';

/**
 * Codes the errors graphql-js reports without a code for variable values it
 * cannot coerce (`$q` given a number, a required variable left out) as
 * BAD_USER_INPUT, like a bad argument; variables of the gateway's own scalars
 * already carry it. Such errors stop execution before it starts, so their
 * result has no `data`, and each names its variable's definition.
 */
export function useVariableErrorCodes(): Plugin {
  return {
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result) || 'data' in result || !result.errors?.some(isUncodedVariableError)) return;
          setResult({
            ...result,
            errors: result.errors.map((error) => (isUncodedVariableError(error) ? new BadVariableValueError(error) : error)),
          });
        },
      };
    },
  };
}

function isUncodedVariableError(error: GraphQLError): boolean {
  return error.extensions.code === undefined && error.nodes?.[0]?.kind === Kind.VARIABLE_DEFINITION;
}
