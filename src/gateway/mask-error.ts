import { GraphQLError } from 'graphql';
import { maskError as maskUnexpectedError, type YogaServerOptions } from 'graphql-yoga';
import { UpstreamError } from '../upstream/errors.js';
import type { Logger } from './logger.js';

type MaskError = NonNullable<Exclude<YogaServerOptions<object, object>['maskedErrors'], boolean | undefined>['maskError']>;

/**
 * Upstream failures reach clients with their stable code in `extensions.code`;
 * errors the schema raised on purpose pass unchanged; anything else is logged
 * and masked.
 */
export function createErrorMasker(logger: Logger): MaskError {
  return (error, message, isDev) => {
    const original = error instanceof GraphQLError ? error.originalError : error;
    if (original instanceof UpstreamError) {
      const located = error as GraphQLError;
      logger.warn({ code: original.code, path: located.path }, original.message);
      return new GraphQLError(original.message, {
        nodes: located.nodes,
        source: located.source,
        positions: located.positions,
        path: located.path,
        extensions: { code: original.code },
      });
    }
    if (error instanceof GraphQLError && (original === undefined || original instanceof GraphQLError)) {
      return error;
    }
    logger.error({ err: original }, 'Unexpected error while executing an operation');
    return maskUnexpectedError(error, message, isDev);
  };
}
