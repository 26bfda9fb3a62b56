import { type ASTNode, type DocumentNode, type GraphQLError, Kind, visit } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { BadArgumentValueError } from '../../errors/field-errors.js';
import { BadVariableValueError } from '../../errors/request-errors.js';

/**
 * Codes the errors graphql-js reports without a code for the values of
 * variables, as bad arguments are coded (BAD_USER_INPUT):
 *
 * - a variable value it cannot coerce (`$q` given a number, a required
 *   variable left out) names the variable in `extensions.variable`; errors of
 *   the gateway's own scalars already carry the code and get the name too.
 *   Such errors stop execution before it starts, so their result has no
 *   `data`, and each names its variable's definition. Every error of such a
 *   result is a request error, answered 400, as Yoga's own executor marks them.
 * - an argument that needs a value given a variable's `null` (a variable with
 *   a default may stand where a value is required) is found only during
 *   execution, beside `data`: a field error, answered as graphql-js answers it,
 *   naming the argument in `extensions.argument` and the variable.
 */
export function useVariableErrorCodes(): Plugin {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result) || !result.errors?.length) return;
          if (!('data' in result)) {
            setResult({
              ...result,
              errors: result.errors.map((error) => {
                const variable = variableOf(error);
                return withStatus400(variable === undefined ? error : new BadVariableValueError(error, variable));
              }),
            });
            return;
          }
          // Every error the gateway raises carries its code: the walk through the document is for the rare answer where one does not.
          if (result.errors.every((error) => error.extensions.code !== undefined)) return;
          const argumentOf = argumentsByValue(args.document);
          setResult({
            ...result,
            errors: result.errors.map((error) => {
              const value = error.nodes?.[0];
              const argument = error.extensions.code === undefined && value !== undefined ? argumentOf.get(value) : undefined;
              if (argument === undefined) return error;
              return new BadArgumentValueError(error, argument, value?.kind === Kind.VARIABLE ? value.name.value : undefined);
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

/**
 * The name of each argument (of a field or a directive) by the node of its
 * value: graphql-js places an argument's error at that node.
 */
function argumentsByValue(document: DocumentNode): Map<ASTNode, string> {
  const names = new Map<ASTNode, string>();
  visit(document, {
    Argument(node) {
      names.set(node.value, node.name.value);
    },
  });
  return names;
}

/** The error, its class kept, with the status Yoga answers it with (`extensions.http`, which Yoga leaves out of the answer). */
function withStatus400(error: GraphQLError): GraphQLError {
  const http = error.extensions.http as Record<string, unknown> | undefined;
  Object.defineProperty(error, 'extensions', { value: { ...error.extensions, http: { ...http, status: 400 } } });
  return error;
}
