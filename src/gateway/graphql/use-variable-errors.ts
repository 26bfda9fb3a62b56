import { getOperationAST, getVariableValues, GraphQLError, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Gives the errors of variables that cannot be coerced (a value of the wrong
 * type, a required one missing or null) `extensions.code: BAD_USER_INPUT`
 * and `extensions.variable` naming the variable, as bad arguments have;
 * graphql-js reports them with a message and no code. The variables are
 * coerced here as execution would, before it, and the answer is the one
 * execution would give: these errors, no data, status 400.
 */
export function useVariableErrors(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      const definitions = operation?.variableDefinitions;
      if (!definitions || definitions.length === 0) return;
      const { errors } = getVariableValues(args.schema, definitions, args.variableValues ?? {});
      if (errors) setResultAndStopExecution({ errors: errors.map(withVariableCode) });
    },
  };
}

function withVariableCode(error: GraphQLError): GraphQLError {
  // graphql-js points each such error at the variable's definition.
  const definition = error.nodes?.[0];
  const variable = definition?.kind === Kind.VARIABLE_DEFINITION ? definition.variable.name.value : undefined;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    originalError: error.originalError,
    extensions: { ...error.extensions, code: 'BAD_USER_INPUT', ...(variable === undefined ? {} : { variable }), http: { status: 400 } },
  });
}
