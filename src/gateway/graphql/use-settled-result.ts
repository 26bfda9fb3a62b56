import type { Plugin } from 'graphql-yoga';
import type { GatewayServerContext } from './server-context.js';

/**
 * Hands Yoga a result the direct lane (direct-answers.ts) has already
 * executed, so that Yoga writes it (status, errors with their request ids,
 * error metrics) without parsing, validating or executing the operation again.
 */
export function useSettledResult(): Plugin<Record<string, unknown>, GatewayServerContext> {
  return {
    onParams({ context, setResult }) {
      const { settled } = context as Partial<GatewayServerContext>;
      if (settled !== undefined) setResult(settled);
    },
  };
}
