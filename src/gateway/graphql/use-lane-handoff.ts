import type { Plugin } from 'graphql-yoga';
import type { GatewayServerContext } from './server-context.js';

/**
 * Takes over from the direct lane (direct-answers.ts) what it already did for
 * a request it hands to Yoga: the parameters it read from the body, so the
 * body is not read and parsed again, and the result it executed, if it got
 * that far, so Yoga writes it (status, errors with their request ids, error
 * metrics) without parsing, validating or executing the operation again.
 */
export function useLaneHandoff(): Plugin<Record<string, unknown>, GatewayServerContext> {
  return {
    onRequestParse({ serverContext, setRequestParser }) {
      const { params } = serverContext as Partial<GatewayServerContext>;
      // After the gateway's JSON body parser (use-json-body.ts), whose choice this replaces.
      if (params !== undefined) setRequestParser(() => params);
    },
    onParams({ context, setResult }) {
      const { settled } = context as Partial<GatewayServerContext>;
      if (settled !== undefined) setResult(settled);
    },
  };
}
