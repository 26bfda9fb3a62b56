import { DEFAULT_METRICS_HOST, DEFAULT_PRODUCTION_SHUTDOWN_DRAIN_DELAY_MS, DEFAULT_SHUTDOWN_DRAIN_DELAY_MS } from './defaults.js';
import type { EnvReader } from './env-reader.js';

/** What operators see of the gateway apart from its answers: metrics, and how it leaves a load balancer. */
export interface ObservabilitySettings {
  /** Port of the metrics server (`GET /metrics`); undefined: no metrics server and no metrics kept. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** How long /ready answers 503 after a stop signal before the gateway stops accepting connections. */
  shutdownDrainDelayMs: number;
}

/** The metrics server's address (never the public port) and the drain delay. */
export function readObservabilitySettings(reader: EnvReader, production: boolean, publicPort: number): ObservabilitySettings {
  const metricsPort = reader.given('METRICS_PORT') ? reader.integer('METRICS_PORT', 0, 0, 65_535) : undefined;
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === publicPort && !reader.refused('METRICS_PORT', 'PORT')) {
    reader.problem(`METRICS_PORT (${metricsPort}) must differ from PORT: metrics are never served on the public port`);
  }
  return {
    metricsPort,
    metricsHost: reader.host('METRICS_HOST') ?? DEFAULT_METRICS_HOST,
    shutdownDrainDelayMs: reader.integer(
      'SHUTDOWN_DRAIN_DELAY_MS',
      production ? DEFAULT_PRODUCTION_SHUTDOWN_DRAIN_DELAY_MS : DEFAULT_SHUTDOWN_DRAIN_DELAY_MS,
      0,
      600_000,
    ),
  };
}
