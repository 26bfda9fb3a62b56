import { createServer } from 'node:http';
import { listen } from '../http/listen.js';
import type { GatewayMetrics } from './metrics.js';

export const METRICS_PATH = '/metrics';

/** A scraper is on the same network and quick; one that hangs is let go. */
const METRICS_REQUEST_TIMEOUT_MS = 10_000;
/** Prometheus keeps one connection per target; a few more allow a person with curl, not a flood. */
const METRICS_MAX_CONNECTIONS = 16;

export interface MetricsServer {
  /** e.g. `http://127.0.0.1:9464/metrics` */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` on an address of its own (METRICS_HOST, METRICS_PORT), never
 * the public port: what the metrics say (traffic, quota use, clients being
 * rate limited) is for operators. Anything else is 404.
 */
export async function startMetricsServer(metrics: GatewayMetrics, host: string, port: number): Promise<MetricsServer> {
  // Scrapes that arrive while one is being written share it: a burst of them costs one exposition.
  let pending: Promise<string> | undefined;
  const exposition = () => (pending ??= metrics.exposition().finally(() => (pending = undefined)));
  const server = createServer(
    { headersTimeout: METRICS_REQUEST_TIMEOUT_MS, requestTimeout: METRICS_REQUEST_TIMEOUT_MS },
    (request, response) => {
      const path = (request.url ?? '/').split('?', 1)[0];
      if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics\n');
        return;
      }
      exposition().then(
        (text) => response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }).end(text),
        (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${String(error)}\n`),
      );
    },
  );
  server.maxConnections = METRICS_MAX_CONNECTIONS;
  const base = await listen(server, host, port, { host: 'METRICS_HOST', port: 'METRICS_PORT' });
  return {
    url: `${base}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
