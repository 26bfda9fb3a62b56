import { GraphQLError } from 'graphql';
import { maskError as maskUnexpectedError, type YogaServerOptions } from 'graphql-yoga';
import { isHeldBack, UpstreamError } from '../upstream/errors.js';
import type { Logger } from './logger.js';

type MaskError = NonNullable<Exclude<YogaServerOptions<object, object>['maskedErrors'], boolean | undefined>['maskError']>;

/**
 * Upstream failures reach clients with their stable code in `extensions.code`;
 * errors the schema raised on purpose pass unchanged; anything else is logged
 * and masked.
 */
export function createErrorMasker(logger: Logger): MaskError {
  return (error, message, isDev) => {
    const original = originalOf(error);
    if (isClientGone(original)) {
      logger.debug({ path: (error as GraphQLError).path }, 'The client left before its answer was ready');
      return maskUnexpectedError(error, message, isDev);
    }
    if (original instanceof UpstreamError) {
      const located = error as GraphQLError;
      // The circuit breaker logs once when it starts holding calls back; each held-back request is detail.
      logger[isHeldBack(original) ? 'debug' : 'warn']({ code: original.code, path: located.path }, original.message);
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

function originalOf(error: unknown): unknown {
  return error instanceof GraphQLError ? error.originalError : error;
}

function isClientGone(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/**
 * Whether the masker has already logged `error` at the level it deserves: an
 * upstream failure as a warning, a client that left at debug. Yoga logs every
 * error it masks as an error; for these that would be noise.
 */
export function isReportedByMasker(error: unknown): boolean {
  const original = originalOf(error);
  return original instanceof UpstreamError || isClientGone(original);
}
