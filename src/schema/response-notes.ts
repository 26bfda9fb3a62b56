import type { GraphQLError } from 'graphql';

/** Something a client should know about data it did get, e.g. that it is stale because the upstream failed. */
export interface ResponseWarning {
  code: string;
  message: string;
  path?: readonly (string | number)[];
  [detail: string]: unknown;
}

/**
 * Partial errors and warnings that resolvers raise while still returning
 * data; they join the response's `errors` and `extensions.warnings` once
 * execution is done.
 */
export class ResponseNotes {
  readonly errors: GraphQLError[] = [];
  readonly warnings: ResponseWarning[] = [];

  addError(error: GraphQLError): void {
    this.errors.push(error);
  }

  addWarning(warning: ResponseWarning): void {
    this.warnings.push(warning);
  }
}
