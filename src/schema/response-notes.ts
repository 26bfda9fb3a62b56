import type { GraphQLError } from 'graphql';

/** Something a client should know about data it did get, e.g. that it is stale because the upstream failed. */
export interface ResponseWarning {
  code: string;
  message: string;
  path?: readonly (string | number)[];
  [detail: string]: unknown;
}

/**
 * What resolvers note about the response while still returning data: partial
 * errors and warnings, which join the response's `errors` and
 * `extensions.warnings` once execution is done, and until when the upstream
 * data it is built from stays fresh, which bounds how long the serialized
 * answer may be reused.
 */
export class ResponseNotes {
  readonly errors: GraphQLError[] = [];
  readonly warnings: ResponseWarning[] = [];
  /** Epoch ms; no upstream data used yet means no bound from data. */
  freshUntil = Number.POSITIVE_INFINITY;

  recordData(freshUntil: number): void {
    this.freshUntil = Math.min(this.freshUntil, freshUntil);
  }

  addError(error: GraphQLError): void {
    this.errors.push(error);
  }

  addWarning(warning: ResponseWarning): void {
    this.warnings.push(warning);
  }
}
