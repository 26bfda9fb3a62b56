import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import { ERROR_CODES, type ErrorCode } from './codes.js';

/** A GraphQL error with a code of the catalogue in `extensions.code`, beside whatever `options.extensions` hold. */
export abstract class CodedGraphQLError extends GraphQLError {
  constructor(code: ErrorCode, message: string, options: GraphQLErrorOptions = {}) {
    super(message, { ...options, extensions: { code, ...options.extensions } });
    this.name = new.target.name;
  }
}

/**
 * A request refused by a Yoga plugin before any resolver runs. Yoga answers
 * with `extensions.http`'s status, the catalogue's for the code, or 200 to a
 * client accepting only `application/json` where the catalogue says so
 * (`spec`); it leaves `http` out of the answer.
 */
export abstract class RequestError extends CodedGraphQLError {
  constructor(code: ErrorCode, message: string, options: GraphQLErrorOptions = {}) {
    const entry: { statuses: readonly number[]; okForApplicationJson?: true } = ERROR_CODES[code];
    const http = { status: entry.statuses[0], ...(entry.okForApplicationJson ? { spec: true } : {}) };
    super(code, message, { ...options, extensions: { ...options.extensions, http } });
  }
}
