import { type GraphQLResolveInfo, responsePathAsArray } from 'graphql';
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
