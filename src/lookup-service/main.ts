import { defaultDataSet } from './default-data-set.js';
import { DEFAULT_HOST } from './options.js';
import { startLookupService } from './server.js';
import { onStopSignal } from '../shared/stop-signals.js';

const DEFAULT_PORT = 4010;

class ConfigurationError extends Error {}

interface CliConfiguration {
  host: string;
  port: number;
  clientId?: string;
  clientSecret?: string;
}

function optionalSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new ConfigurationError(`${name} must not be empty when set`);
  return value;
}

function readConfiguration(env: NodeJS.ProcessEnv): CliConfiguration {
  const host = optionalSetting(env, 'HOST') ?? DEFAULT_HOST;
  if (/\s/.test(host)) throw new ConfigurationError(`HOST must be a host name or IP address, got ${JSON.stringify(host)}`);
  const rawPort = optionalSetting(env, 'PORT');
  const port = rawPort === undefined ? DEFAULT_PORT : /^[0-9]{1,5}$/.test(rawPort) ? Number(rawPort) : Number.NaN;
  if (!(port >= 0 && port <= 65_535))
    throw new ConfigurationError(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(rawPort)}`);
  const clientId = optionalSetting(env, 'LOOKUP_CLIENT_ID');
  const clientSecret = optionalSetting(env, 'LOOKUP_CLIENT_SECRET');
  return { host, port, ...(clientId === undefined ? {} : { clientId }), ...(clientSecret === undefined ? {} : { clientSecret }) };
}

/** `npm run lookup-service`: the service on HOST:PORT, printing its URL and its (test) credentials. */
async function main(): Promise<void> {
  let configuration: CliConfiguration;
  try {
    configuration = readConfiguration(process.env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }

  const startedAt = performance.now();
  const companies = defaultDataSet();
  const service = await startLookupService({ ...configuration, companies });
  const startupMs = Math.round(performance.now() - startedAt);
  // Before the ready lines: whoever reads them may signal at once, and a signal before the listener is there kills the process uncleanly.
  onStopSignal((signal) => {
    process.stdout.write(`${signal} received, closing\n`);
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`Failed to close: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  });
  const count = (jurisdiction: string) => companies.filter((company) => company.jurisdiction === jurisdiction).length;

  process.stdout.write(
    [
      `Company Lookup Service listening on ${service.url}`,
      `  client_id:     ${service.credentials.clientId}`,
      // A secret it was given is the operator's already, and a log is no place for it (the compose fleet's upstream).
      `  client_secret: ${configuration.clientSecret === undefined ? service.credentials.clientSecret : '(LOOKUP_CLIENT_SECRET)'}`,
      `  ${companies.length} companies (GB ${count('GB')}, IE ${count('IE')}), ready in ${startupMs} ms`,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`Lookup service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
