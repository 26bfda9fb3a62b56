import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayMetrics } from './metrics.js';

export interface GraphqlMetricsOptions {
  metrics: GatewayMetrics;
}

/**
 * Times parse, validate and execute, and counts the errors of every answer
 * Yoga writes by their code, and the answers the gateway or the upstream failed. Hand-written envelop hooks rather than
 * @graphql-yoga/plugin-prometheus: that plugin labels by operation name (a
 * client's choice) and URL by default, and builds a label set per observation.
 */
export function useGraphqlMetrics({ metrics }: GraphqlMetricsOptions): Plugin {
  return {
    onParse() {
      const startedAt = performance.now();
      return () => metrics.graphqlPhase('parse', (performance.now() - startedAt) / 1000);
    },
    onValidate() {
      const startedAt = performance.now();
      return () => metrics.graphqlPhase('validate', (performance.now() - startedAt) / 1000);
    },
    onExecute() {
      const startedAt = performance.now();
      return { onExecuteDone: () => metrics.graphqlPhase('execute', (performance.now() - startedAt) / 1000) };
    },
    onResultProcess({ result }) {
      if (isAsyncIterable(result)) return;
      let failed = false;
      for (const one of Array.isArray(result) ? result : [result]) {
        for (const error of one.errors ?? []) failed = metrics.graphqlError(error.extensions?.code) || failed;
      }
      // Once per HTTP request, however many operations and errors it holds: the availability SLO counts requests.
      if (failed) metrics.graphqlAnswerFailed();
    },
  };
}
