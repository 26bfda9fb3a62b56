import { GraphQLError } from 'graphql';

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
