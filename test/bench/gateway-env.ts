import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { BenchOptions } from './options.js';
import type { LookupStarted } from './protocol.js';

/** The key every benchmark request presents, new for each run. */
export const BENCH_API_KEY = randomBytes(32).toString('hex');
export const API_KEY_HEADER = 'x-api-key';

/**
 * NODE_OPTIONS as every shipped deployment gives it to the gateway (the
 * Kubernetes base's gateway.env; the compose file and the chart's defaults
 * give the same cap): the heap's cap, from which V8 also sets
 * how far the heap grows between full collections, so that what the benchmark
 * measures of memory and pauses is what a deployed instance does.
 */
export const DEPLOYED_NODE_OPTIONS = deployedNodeOptions(
  readFileSync(new URL('../../deploy/kubernetes/base/gateway.env', import.meta.url), 'utf8'),
);

function deployedNodeOptions(envFile: string): string {
  const value = /^NODE_OPTIONS=(.*)$/m.exec(envFile)?.[1];
  if (value === undefined)
    throw new Error('deploy/kubernetes/base/gateway.env sets no NODE_OPTIONS for the benchmark to run the gateway with');
  return value;
}

/**
 * The whole environment of a gateway process, as an operator would run it:
 * production mode, API keys required, the heap capped as deployed. The rate limit stays on, so that its
 * cost is measured, but far above the benchmark's load, which all comes from
 * one client. Nothing else is inherited, so the developer's shell cannot
 * change what is measured.
 */
export function gatewayEnv(
  options: Pick<BenchOptions, 'logLevel'>,
  upstream: LookupStarted,
  extra: Record<string, string>,
): Record<string, string> {
  return {
    ...(process.env.PATH === undefined ? {} : { PATH: process.env.PATH }),
    NODE_ENV: 'production',
    NODE_OPTIONS: DEPLOYED_NODE_OPTIONS,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: options.logLevel,
    UPSTREAM_URL: upstream.url,
    UPSTREAM_CLIENT_ID: upstream.credentials.clientId,
    UPSTREAM_CLIENT_SECRET: upstream.credentials.clientSecret,
    GATEWAY_API_KEYS: `bench:${BENCH_API_KEY}`,
    RATE_LIMIT_PER_MINUTE: '6000000',
    RATE_LIMIT_BURST: '1000000',
    // Every connection of the load generator comes from one address; --concurrency goes up to MAX_CONNECTIONS.
    MAX_CONNECTIONS_PER_ADDRESS: '1024',
    ...extra,
  };
}
