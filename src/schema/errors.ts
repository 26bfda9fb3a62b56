import { GraphQLError, responsePathAsArray, type GraphQLResolveInfo } from 'graphql';

/** A bad argument: named in the message and in `extensions.argument`, answered without an upstream call. */
export class BadUserInputError extends GraphQLError {
  constructor(argument: string, problem: string) {
    super(`${argument}: ${problem}`, { extensions: { code: 'BAD_USER_INPUT', argument } });
  }
}

interface ValidationIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** Turns the validation plugin's issues into one error naming the first bad argument. */
export function badArgumentsError(issues: ReadonlyArray<ValidationIssue>): BadUserInputError {
  const [first] = issues;
  const segment = first?.path?.[0];
  const argument = typeof segment === 'object' && segment !== null ? segment.key : segment;
  return new BadUserInputError(String(argument ?? 'arguments'), first?.message ?? 'is invalid');
}

/**
 * The upstream sent a value the gateway could not read. The field it feeds is
 * null (or, for a list, lacks the entry) and this partial error, placed at the
 * field's path, says which upstream field was at fault.
 */
export class InvalidUpstreamFieldError extends GraphQLError {
  constructor(message: string, upstreamField: string, info: GraphQLResolveInfo) {
    super(message, {
      nodes: info.fieldNodes,
      path: responsePathAsArray(info.path),
      extensions: { code: 'UPSTREAM_INVALID_FIELD', upstreamField },
    });
  }
}
