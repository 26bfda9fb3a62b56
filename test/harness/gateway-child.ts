import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { createLogger } from '../../src/gateway/logger.js';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { LogCounter } from './log-counts.js';
import type { GatewayStartParams, GatewayStarted, GatewayStats } from './protocol.js';
import { collectGarbage, processStats, serveParent } from './serve-parent.js';

/**
 * The gateway as `npm start` runs it, in a process of its own, for the
 * benchmark and the soak run: so that its CPU time, memory, crash or leak
 * are its own. Configured by its environment (NODE_ENV must be there from
 * the start: graphql reads it once, on import), with the start call's
 * settings on top. Its log lines go to its stdout, which the benchmark points
 * at /dev/null (written as in production, but costing nothing to read), or
 * are counted here for the soak run's report.
 */
let gateway: RunningGateway | undefined;
let logCounter: LogCounter | undefined;

function stats(): GatewayStats {
  return { ...processStats(), cacheBytes: gateway?.cacheBytes ?? 0, ...(logCounter && { log: logCounter.counts }) };
}

serveParent(
  {
    async start(params): Promise<GatewayStarted> {
      const { settings, log } = params as GatewayStartParams;
      const config = { ...readConfig(), ...settings };
      if (config.upstream === undefined) throw new Error('The gateway child needs UPSTREAM_URL in its environment');
      const counter = log === 'count' ? new LogCounter() : undefined;
      logCounter = counter;
      const logger = createLogger(config.logLevel, counter && { write: (line: string) => counter.count(line.trimEnd()) });
      gateway = await startGateway(config, config.upstream, logger);
      return { url: gateway.url, graphqlUrl: gateway.graphqlUrl };
    },
    stats,
    async gc() {
      await collectGarbage();
      return stats();
    },
  },
  () => gateway?.close() ?? Promise.resolve(),
);
