import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { createLogger } from '../../../src/gateway/logger.js';
import { startGateway, type RunningGateway } from '../../../src/gateway/server.js';
import type { GatewayStats, ServerStarted } from '../protocol.js';
import { collectGarbage, processStats, serveParent } from './serve-parent.js';

/**
 * The gateway as `npm start` runs it, in a process of its own, configured by
 * its environment (NODE_ENV must be there from the start: graphql reads it
 * once, on import). It logs to its stdout, which the harness points at
 * /dev/null: the log lines are written, as in production, but cost nothing to
 * read.
 */
let gateway: RunningGateway | undefined;

function stats(): GatewayStats {
  return { ...processStats(), cacheBytes: gateway?.cacheBytes ?? 0 };
}

serveParent({
  async start(): Promise<ServerStarted> {
    const config = readConfig();
    if (config.upstream === undefined) throw new Error('The benchmark gateway needs UPSTREAM_URL');
    gateway = await startGateway(config, config.upstream, createLogger(config.logLevel));
    return { url: gateway.url };
  },
  stats,
  gc() {
    collectGarbage();
    return stats();
  },
});
