import { useEngine } from '@envelop/core';
import { execute } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { UNEXPECTED_ERROR_MESSAGE } from '../../errors/internal-error.js';
import type { GatewayContext, SearchLimits } from '../../schema/context.js';
import { schema } from '../../schema/index.js';
import { ResponseNotes } from '../../schema/response-notes.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { Alarm } from '../../upstream/resilience/clock.js';
import { deadlineIn } from '../../upstream/resilience/deadline.js';
import type { Logger } from '../logger.js';
import { GRAPHQL_PATH } from '../paths.js';
import { type DocumentCache, NO_PARSE_ERROR_CACHE } from './document-cache.js';
import { createErrorMasker } from './mask-error.js';
import { extraParamNames, protectionPlugins, type YogaProtection } from './protection-plugins.js';
import type { GatewayServerContext } from './server-context.js';
import { useDocumentCache } from './use-document-cache.js';
import { useErrorRequestIds } from './use-error-request-ids.js';
import { useRequestId } from './use-request-id.js';
import { useResponseNotes } from './use-response-notes.js';
import { useMaxResponseBytes } from '../limits/use-max-response-bytes.js';
import { useVariableErrorCodes } from './use-variable-error-codes.js';

export interface GatewayOptions {
  upstream: UpstreamClient;
  limits: SearchLimits;
  /** How long one GraphQL request waits for the upstream before it answers without it. */
  requestDeadlineMs: number;
  /** What rings a request's deadline (default: a timer); tests ring it when they choose. */
  deadlineAlarm?: Alarm | undefined;
  logger: Logger;
  protection: YogaProtection;
  /** Parsed documents kept for reuse, within their share of CACHE_MAX_BYTES. */
  documents: DocumentCache;
  /** Where tracing is on, the plugins that make the operation and resolver spans. */
  tracingPlugins?: Plugin<GatewayContext>[] | undefined;
  /** Plugins that watch without changing answers, such as metrics. */
  observers?: Plugin[];
}

export type Gateway = ReturnType<typeof createGateway>;

/** The GraphQL gateway as a request handler; `../server.ts` puts it on a port. */
export function createGateway({
  upstream,
  limits,
  requestDeadlineMs,
  deadlineAlarm,
  logger,
  protection,
  documents,
  tracingPlugins = [],
  observers = [],
}: GatewayOptions) {
  const errorRequestIds = useErrorRequestIds();
  return createYoga<GatewayServerContext, GatewayContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // /health is answered in front of Yoga (http/request-handler.ts), which hands Yoga /graphql alone. Yoga's own
    // check answers every URL that ends in its endpoint with an empty 200 before reading the request, a GraphQL request
    // to /graphql?probe=/health too. A space ends no request target: the check matches none.
    healthCheckEndpoint: ' ',
    landingPage: false,
    // One context per operation: the operations of a batch each note their own errors and warnings.
    context: ({ request }) => ({
      upstream,
      limits,
      deadline: deadlineIn(requestDeadlineMs, request.signal, deadlineAlarm),
      notes: new ResponseNotes(),
    }),
    plugins: [
      // graphql-js executes, as the specification says: each object's keys in the order the document selects them.
      // Yoga's own executor (@graphql-tools/executor) writes a field whose resolver returns a promise when it settles.
      useEngine({ execute }),
      ...tracingPlugins,
      // Before the notes join the answer: it counts them, and drops them with an answer it refuses.
      useMaxResponseBytes({ maxBytes: protection.maxResponseBytes }),
      useResponseNotes(),
      useVariableErrorCodes(),
      ...protectionPlugins(protection),
      useDocumentCache({ cache: documents }),
      useRequestId(),
      errorRequestIds.plugin,
      ...observers,
    ],
    // Bounded by bytes; Yoga's default is 1,024 documents whatever their size. Validation results go with their document.
    parserAndValidationCache: { documentCache: documents, errorCache: NO_PARSE_ERROR_CACHE },
    // GraphiQL is served in front of Yoga (../graphiql/), compressed and cacheable.
    graphiql: false,
    // CORS is decided in front of Yoga (http/request-handler.ts), for every answer alike.
    cors: false,
    // No field takes an upload, so multipart requests are not parsed at all.
    multipart: false,
    batching: protection.batchingLimit > 0 && { limit: protection.batchingLimit },
    // The request handler in front reads the body within MAX_BODY_BYTES; a second limit here would only cost time.
    maxRequestBodySize: false,
    extraParamNames: extraParamNames(protection),
    // isDev false: never a stack trace or an original message in an answer, whatever NODE_ENV says; logs have them.
    maskedErrors: {
      maskError: createErrorMasker(logger, errorRequestIds.requestIdOf),
      errorMessage: UNEXPECTED_ERROR_MESSAGE,
      isDev: false,
    },
    logging: {
      debug: forwardTo(logger, 'debug'),
      info: forwardTo(logger, 'info'),
      warn: forwardTo(logger, 'warn'),
      error: forwardTo(logger, 'error'),
    },
  });
}

/** Yoga logs like console (a message, then details); pino wants the details first, as fields. */
function forwardTo(logger: Logger, level: 'debug' | 'info' | 'warn' | 'error') {
  return (message: unknown, ...details: unknown[]) =>
    logger[level](details.length > 0 ? { details } : {}, message instanceof Error ? message.message : String(message));
}
