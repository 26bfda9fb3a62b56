import { Gauge, type Registry } from 'prom-client';
import type { UpstreamStatus } from '../../upstream/observer.js';
import { REDIS_REFUSAL_CAUSES } from '../../shared-state/redis-refusals.js';
import type { Clock } from '../../upstream/resilience/clock.js';
import type { SharingState } from '../shared-store.js';
import { readGauge } from './instruments.js';

/** What the gauges read at each scrape, and only then. */
export interface MetricSources {
  upstream(): UpstreamStatus;
  /** Bytes each cache holds now. */
  cacheBytes(): Record<'upstream_windows' | 'responses' | 'documents', number>;
  /** The clock the token's expiry is told by. */
  clock: Clock;
  /** With REDIS_URL: whether this instance shares through Redis now, and if not, why. */
  redisSharing?: (() => SharingState) | undefined;
  /** Connections open now on the public port. */
  connections(): Promise<number>;
}

/** The bounds the settings set on what other metrics count, shown beside them: a panel or an alert reads one against the other. */
export interface MetricLimits {
  /** CACHE_MAX_BYTES */
  cacheMaxBytes: number;
  /** UPSTREAM_MAX_CALLS_PER_MINUTE; unset, its gauge is absent. */
  upstreamMaxCallsPerMinute: number | undefined;
  /** MAX_CONNECTIONS */
  maxConnections: number;
}

/**
 * The gauges: the state they show is read when Prometheus scrapes, never kept
 * up to date between scrapes. Until `sources()` gives something (the gateway
 * hands its sources over once it listens) they show nothing.
 */
export function registerGauges(registry: Registry, sources: () => MetricSources | undefined, limits: MetricLimits): void {
  const upstream = () => sources()?.upstream();
  readGauge(registry, 'csg_upstream_calls_in_flight', 'Calls to the lookup service in flight now.', () => upstream()?.callsInFlight);
  readGauge(
    registry,
    'csg_upstream_calls_waiting',
    'Calls waiting now for a slot (UPSTREAM_MAX_IN_FLIGHT).',
    () => upstream()?.callsWaiting,
  );
  readGauge(
    registry,
    'csg_redis_sharing',
    'With REDIS_URL: 1 while Redis serves the gateway and the fleet shares its state, 0 while this instance goes on alone; absent without REDIS_URL.',
    () => {
      const sharing = sources()?.redisSharing;
      return sharing === undefined ? undefined : Number(sharing().state === 'sharing');
    },
  );
  new Gauge({
    name: 'csg_redis_refused',
    help: 'With REDIS_URL: 1 for the cause while Redis answers but refuses what sharing needs (a setting to change: see the log), 0 otherwise.',
    labelNames: ['cause'],
    registers: [registry],
    collect() {
      const sharing = sources()?.redisSharing?.();
      if (!sharing) return;
      const refused = sharing.state === 'refused' ? sharing.refusal.cause : undefined;
      for (const cause of REDIS_REFUSAL_CAUSES) this.set({ cause }, refused === cause ? 1 : 0);
    },
  });
  readGauge(
    registry,
    'csg_upstream_token_expiry_seconds',
    'Seconds until the service token expires (negative: expired); absent before the first token.',
    () => {
      const read = sources();
      const expiresAt = read?.upstream().token.expiresAt;
      return read && expiresAt !== undefined ? (expiresAt - read.clock()) / 1000 : undefined;
    },
  );
  readGauge(
    registry,
    'csg_http_connections',
    'Connections open now on the public port, those about to be refused over MAX_CONNECTIONS included.',
    () => sources()?.connections(),
  );
  new Gauge({
    name: 'csg_upstream_circuit_state',
    help: "The circuit breaker's state: 1 for the state it is in, 0 for the others.",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const status = upstream();
      if (!status) return;
      for (const state of ['closed', 'open', 'half-open'] as const) this.set({ state }, status.circuit === state ? 1 : 0);
    },
  });
  new Gauge({
    name: 'csg_cache_bytes',
    help: 'Bytes each cache holds now, as its share of CACHE_MAX_BYTES counts them.',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      const bytes = sources()?.cacheBytes();
      if (!bytes) return;
      for (const [cache, value] of Object.entries(bytes)) this.set({ cache }, value);
    },
  });

  readGauge(
    registry,
    'csg_cache_max_bytes',
    'CACHE_MAX_BYTES: the bound of all caches together (csg_cache_bytes).',
    () => limits.cacheMaxBytes,
  );
  readGauge(
    registry,
    'csg_upstream_max_calls_per_minute',
    "UPSTREAM_MAX_CALLS_PER_MINUTE: the fleet's budget of calls to the lookup service (each instance's own while Redis is away); absent when unset.",
    () => limits.upstreamMaxCallsPerMinute,
  );
  readGauge(
    registry,
    'csg_http_max_connections',
    'MAX_CONNECTIONS: the most connections served at once (csg_http_connections).',
    () => limits.maxConnections,
  );
}
