import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as GatewayConfigModule from '../../src/gateway/config/gateway-config.js';
import type * as LoggerModule from '../../src/gateway/logger.js';
import type * as OptionsModule from '../../src/gateway/options-from-settings.js';
import type * as ServerModule from '../../src/gateway/server.js';
import type { UpstreamTarget } from '../../src/gateway/upstream-client-for.js';
import { LogCounter } from './log-counts.js';
import type { GatewayStartParams, GatewayStarted, GatewayStats } from './protocol.js';
import { collectGarbage, processStats, serveParent } from './serve-parent.js';

/**
 * The gateway in a process of its own, for the benchmark, the soak run and
 * the heap tests: so that its CPU time, memory, crash or leak are its own.
 * Configured by its environment (NODE_ENV must be there from the start:
 * graphql reads it once, on import), with the start call's settings on top.
 * Its log lines go to its stdout, which the benchmark points at /dev/null
 * (written as in production, but costing nothing to read), or are counted
 * here for the soak run's report.
 *
 * GATEWAY_MODULES names the folder the gateway's modules are loaded from:
 * this checkout's src/ by default (run through tsx, as the tests run it), or
 * a checkout's built dist/, which is what `npm start` and the image run and
 * so what the benchmark measures: tsx's transform adds work of its own to
 * every closure a request makes.
 */
const modules = process.env.GATEWAY_MODULES ?? fileURLToPath(new URL('../../src/', import.meta.url));
const load = <T>(path: string) => import(pathToFileURL(join(modules, path)).href) as Promise<T>;
const [{ readConfig }, { createLogger }, { startGateway }, { optionsOf }] = await Promise.all([
  load<typeof GatewayConfigModule>('gateway/config/gateway-config.js'),
  load<typeof LoggerModule>('gateway/logger.js'),
  load<typeof ServerModule>('gateway/server.js'),
  load<typeof OptionsModule>('gateway/options-from-settings.js').catch(() => ({ optionsOf: undefined })),
]);

/**
 * Starts the loaded gateway with `config`, in front of the upstream it names.
 * A checkout from before the gateway took its parts by name (a --baseline of
 * the benchmark) has the upstream in its configuration, as `upstream`, and its
 * startGateway takes the configuration, the upstream and the logger.
 */
function start(config: GatewayConfigModule.GatewayConfig, logger: LoggerModule.Logger): Promise<ServerModule.RunningGateway> {
  const target = optionsOf ? optionsOf(config).upstreamTarget : (config as { upstream?: UpstreamTarget }).upstream;
  if (target === undefined) throw new Error('The gateway child needs UPSTREAM_URL in its environment');
  if (optionsOf === undefined || startGateway.length > 1) {
    type StartByPosition = (config: unknown, target: UpstreamTarget, logger: LoggerModule.Logger) => Promise<ServerModule.RunningGateway>;
    return (startGateway as unknown as StartByPosition)(config, target, logger);
  }
  return startGateway({ ...optionsOf(config).gateway, target, logger });
}

let gateway: ServerModule.RunningGateway | undefined;
let logCounter: LogCounter | undefined;

function stats(): GatewayStats {
  return { ...processStats(), cacheBytes: gateway?.cacheBytes ?? 0, ...(logCounter && { log: logCounter.counts }) };
}

serveParent(
  {
    async start(params): Promise<GatewayStarted> {
      const { settings, log } = params as GatewayStartParams;
      const config = { ...readConfig(), ...settings };
      const counter = log === 'count' ? new LogCounter() : undefined;
      logCounter = counter;
      const logger = createLogger(config.logLevel, counter && { write: (line: string) => counter.count(line.trimEnd()) });
      gateway = await start(config, logger);
      return { url: gateway.url, graphqlUrl: gateway.graphqlUrl, cacheMaxBytes: config.cacheMaxBytes };
    },
    stats,
    async gc() {
      await collectGarbage();
      return stats();
    },
  },
  () => gateway?.close() ?? Promise.resolve(),
);
