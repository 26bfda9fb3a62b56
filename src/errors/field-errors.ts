import { type GraphQLError, type GraphQLResolveInfo, responsePathAsArray } from 'graphql';
import { CodedGraphQLError } from './coded-graphql-error.js';

interface ValidationIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** A bad argument: named in the message and in `extensions.argument`, answered without an upstream call. */
export class BadUserInputError extends CodedGraphQLError {
  constructor(argument: string, problem: string) {
    super('BAD_USER_INPUT', `${argument}: ${problem}`, { extensions: { argument } });
  }

  /** The error naming the first bad argument among a validation plugin's issues. */
  static fromIssues(issues: ReadonlyArray<ValidationIssue>): BadUserInputError {
    const [first] = issues;
    const segment = first?.path?.[0];
    const argument = typeof segment === 'object' && segment !== null ? segment.key : segment;
    return new BadUserInputError(String(argument ?? 'arguments'), first?.message ?? 'is invalid');
  }
}

/** A value a scalar cannot read, wherever it is given; graphql-js names the argument or variable around the message. */
export class BadScalarValueError extends CodedGraphQLError {
  constructor(message: string) {
    super('BAD_USER_INPUT', message);
  }
}

/**
 * An argument that needs a value given a variable's null: graphql-js lets a
 * variable with a default (`$v: Boolean = true`) stand where a value is
 * required (`@include(if: $v)`), so a request that sends it `null` is refused
 * only during execution, as a field error without a code. The same error,
 * coded like any other bad argument, naming the argument in
 * `extensions.argument` and, where a variable gave the value, the variable in
 * `extensions.variable` (graphql/use-variable-error-codes.ts).
 */
export class BadArgumentValueError extends CodedGraphQLError {
  constructor(error: GraphQLError, argument: string, variable: string | undefined) {
    super('BAD_USER_INPUT', error.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      originalError: error.originalError,
      extensions: { ...error.extensions, argument, ...(variable !== undefined && { variable }) },
    });
  }
}

/**
 * The upstream sent a value the gateway could not read. The field it feeds is
 * null (or, for a list, lacks the entry) and this partial error, placed at the
 * field's path, says which upstream field was at fault.
 */
export class InvalidUpstreamFieldError extends CodedGraphQLError {
  constructor(message: string, upstreamField: string, info: GraphQLResolveInfo) {
    super('UPSTREAM_INVALID_FIELD', message, {
      nodes: info.fieldNodes,
      path: responsePathAsArray(info.path),
      extensions: { upstreamField },
    });
  }
}
