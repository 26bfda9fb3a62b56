import { readFileSync } from 'node:fs';
import { ConfigError, describeConfig, type GatewayConfig, readConfig, settingsHelp } from './gateway/config/gateway-config.js';
import { createLogger, destinationFor, type Logger } from './gateway/logger.js';
import { graphiqlAvailability, type GraphiqlAvailability } from './gateway/graphiql/availability.js';
import { optionsOf, reloadableOf } from './gateway/options-from-settings.js';
import type { UpstreamTarget } from './gateway/upstream-client-for.js';
import { type RunningGateway, startGateway } from './gateway/server.js';
import type { LookupService } from './lookup-service/index.js';
import { onStopSignal } from './shared/stop-signals.js';
import { startTracing } from './gateway/observability/tracing.js';
import { Reloader } from './gateway/reload/reloader.js';

/** The release running, as package.json names it (the image's version label is the same): on the ready line, so that a log tells which release answered. */
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * `npm start`: the gateway in front of UPSTREAM_URL, or, when that is unset,
 * in front of an embedded lookup service started here with fresh credentials.
 * `--help` lists the settings instead.
 */
async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(settingsHelp());
    return;
  }
  // SIGHUP reloads (gateway/reload/); Node's default for it ends the process, so it is taken from the first moment, even
  // where nothing is configured to reload. One that comes while the gateway starts is answered by the check after start.
  let reloader: Reloader | undefined;
  process.on('SIGHUP', () => void reloader?.reload('SIGHUP'));
  let config: GatewayConfig;
  try {
    config = readConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const { gateway: parts, log, tracingSettings, upstreamTarget } = optionsOf(config);
  // Before anything else, so that the logger can write the active span's ids on its lines.
  const tracing = await startTracing(tracingSettings);
  const format = log.format === 'auto' ? (process.stdout.isTTY ? 'pretty' : 'json') : log.format;
  const logger = createLogger(log.level, await destinationFor(format), tracing?.logFields);
  tracing?.reportProblemsTo(logger);

  const { target, lookupService } = upstreamTarget
    ? { target: upstreamTarget, lookupService: undefined }
    : await startEmbeddedUpstream(logger);

  const gateway = await startGateway({ ...parts, target, logger, tracing });
  const stop = async (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'Shutting down');
    reloader?.close();
    try {
      await gateway.close();
      await lookupService?.close();
      // Exports the spans still waiting, the last requests' among them.
      await tracing?.shutdown();
    } catch (error) {
      logger.error({ err: error }, 'Failed to stop cleanly');
      process.exit(1);
    }
    logger.info('Stopped');
    process.exit(0);
  };
  // Before the ready line: whoever reads it may signal at once, and a signal before the listener is there kills the process uncleanly.
  onStopSignal((signal) => void stop(signal));
  reloader = new Reloader({ env: process.env, config, apply: (reloaded) => gateway.reload(reloadableOf(reloaded)), logger });
  // A file changed between the configuration's reading and the watch's start would otherwise wait for the next change.
  await reloader.reload('start');
  // What was set, short enough to read before the ready line; every setting where asked for.
  const set = describeConfig(config, process.env);
  logger.info({ set }, `Configuration: ${Object.keys(set).length} settings set, the others at their defaults (docs/configuration.md)`);
  logger.debug({ config: describeConfig(config) }, 'Configuration: every setting');
  // The pid: what to signal, and, under `npm start`, not npm's own.
  logger.info(
    {
      pid: process.pid,
      version: VERSION,
      graphql: gateway.graphqlUrl,
      graphiql: gateway.graphiqlUrl,
      metrics: gateway.metricsUrl,
      admin: gateway.adminUrl,
    },
    `Gateway ready: ${served(graphiqlAvailability(parts.graphql), gateway)}`,
  );
  // Whoever waits for this line (a person, a supervisor, a test) should not wait for the log buffer to fill.
  // The embedded data set is generated once the line is out rather than before it: the first search finds it ready
  // unless it comes within a second or so, and then waits no longer than a start that generated it first would have.
  // Twice: a flush asked while an earlier write is under way calls back when that write ends, lines after it unwritten.
  logger.flush(() => logger.flush(() => lookupService?.prepareSearch()));
}

/**
 * Every address the ready line says is served: GraphiQL's where a browser gets it, else GraphQL's (and why GraphiQL
 * is not there if it is on), then the metrics' and the admin server's where they are served, the ports chosen when
 * METRICS_PORT=0 or ADMIN_PORT=0.
 */
function served(graphiql: GraphiqlAvailability, gateway: RunningGateway): string {
  const metrics =
    (gateway.metricsUrl === undefined ? '' : `; metrics at ${gateway.metricsUrl}`) +
    (gateway.adminUrl === undefined ? '' : `; admin server (POST /purge) at ${gateway.adminUrl}`);
  if (gateway.graphiqlUrl !== undefined) return `GraphiQL at ${gateway.graphiqlUrl}${metrics}`;
  const why = graphiql === 'trusted-documents-only' ? ' (GraphiQL is off: only trusted documents run here)' : '';
  return `GraphQL at ${gateway.graphqlUrl}${why}${metrics}`;
}

async function startEmbeddedUpstream(logger: Logger): Promise<{ target: UpstreamTarget; lookupService: LookupService }> {
  // Loaded only here: the lookup service is a test double, and a gateway in front of a real upstream never loads it.
  const { companiesPerJurisdiction, startLookupService } = await import('./lookup-service/index.js');
  // Its data set is generated once the ready line is out (see the end of main).
  const lookupService = await startLookupService({ deferDataSet: true });
  // Its data holds a few jurisdictions only: said here, so that a search elsewhere answering none is no surprise.
  const jurisdictions = companiesPerJurisdiction();
  logger.info(
    { url: lookupService.url, jurisdictions },
    `Embedded lookup service started (UPSTREAM_URL is unset): companies in ${Object.keys(jurisdictions).join(', ')} only`,
  );
  return { target: { url: new URL(lookupService.url), ...lookupService.credentials }, lookupService };
}

main().catch((error: unknown) => {
  process.stderr.write(`Gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
