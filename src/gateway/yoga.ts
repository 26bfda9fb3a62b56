import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga } from 'graphql-yoga';
import type { GatewayContext, SearchLimits } from '../schema/context.js';
import { schema } from '../schema/index.js';
import { ResponseNotes } from '../schema/response-notes.js';
import type { UpstreamClient } from '../upstream/client.js';
import { deadlineIn } from '../upstream/resilience/deadline.js';
import { GRAPHIQL_EXAMPLE_QUERY } from './graphiql-example.js';
import type { Logger } from './logger.js';
import { createErrorMasker, isReportedByMasker } from './mask-error.js';
import { useResponseNotes } from './use-response-notes.js';

export const GRAPHQL_PATH = '/graphql';
export const HEALTH_PATH = '/health';

export interface GatewayOptions {
  upstream: UpstreamClient;
  limits: SearchLimits;
  /** How long one GraphQL request waits for the upstream before it answers without it. */
  requestDeadlineMs: number;
  logger: Logger;
}

/** The GraphQL gateway as a request handler; `server.ts` puts it on a port. */
export function createGateway({ upstream, limits, requestDeadlineMs, logger }: GatewayOptions) {
  return createYoga<object, GatewayContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    healthCheckEndpoint: HEALTH_PATH,
    landingPage: false,
    context: ({ request }) => ({
      upstream,
      limits,
      deadline: deadlineIn(requestDeadlineMs, request.signal),
      notes: new ResponseNotes(),
    }),
    plugins: [useResponseNotes()],
    graphiql: { title: 'Company search', defaultQuery: GRAPHIQL_EXAMPLE_QUERY },
    // Served from the package itself, not a CDN, so GraphiQL works on closed networks.
    renderGraphiQL,
    maskedErrors: { maskError: createErrorMasker(logger) },
    logging: {
      debug: forwardTo(logger, 'debug'),
      info: forwardTo(logger, 'info'),
      warn: forwardTo(logger, 'warn'),
      error: (message: unknown, ...details: unknown[]) => {
        if (!isReportedByMasker(message)) forwardTo(logger, 'error')(message, ...details);
      },
    },
  });
}

/** Yoga logs like console (a message, then details); pino wants the details first, as fields. */
function forwardTo(logger: Logger, level: 'debug' | 'info' | 'warn' | 'error') {
  return (message: unknown, ...details: unknown[]) =>
    logger[level](details.length > 0 ? { details } : {}, message instanceof Error ? message.message : String(message));
}
