import { GraphQLError } from 'graphql';
import { maskError as maskUnexpectedError, type YogaServerOptions } from 'graphql-yoga';
import { UpstreamError } from '../../errors/upstream-errors.js';
import type { Logger } from '../logger.js';
import type { ErrorRequestIds } from './use-error-request-ids.js';

type MaskError = NonNullable<Exclude<YogaServerOptions<object, object>['maskedErrors'], boolean | undefined>['maskError']>;

/**
 * Upstream failures reach clients as they are: their stable code already in
 * `extensions.code`, their message written for clients, naming no upstream
 * path or library code. The upstream client has already logged each failure
 * once, with those details; here each request that got one is only debug. So
 * do errors the schema raised on purpose, and the errors of a client that has
 * left (nobody reads its answer). Anything else is logged and masked.
 * Returning an error unchanged also keeps Yoga from logging it a second time,
 * as an error.
 */
export function createErrorMasker(logger: Logger, requestIdOf: ErrorRequestIds = () => undefined): MaskError {
  return (error, message, isDev) => {
    const original = error instanceof GraphQLError ? error.originalError : error;
    const path = error instanceof GraphQLError ? error.path : undefined;
    const requestId = requestIdOf(original ?? error);
    if (error instanceof Error && original instanceof DOMException && original.name === 'AbortError') {
      logger.debug({ path, requestId }, 'The client left before its answer was ready');
      return error;
    }
    if (error instanceof Error && original instanceof UpstreamError) {
      logger.debug({ code: original.code, detail: original.detail, path, requestId }, 'A request got an upstream failure');
      return error;
    }
    if (error instanceof GraphQLError && (original === undefined || original instanceof GraphQLError)) {
      return error;
    }
    logger.error({ err: original, requestId }, 'Unexpected error while executing an operation');
    return maskUnexpectedError(error, message, isDev);
  };
}
