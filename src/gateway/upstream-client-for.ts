import type { Tracer } from '@opentelemetry/api';
import { UpstreamClient } from '../upstream/client.js';
import type { UpstreamLog } from '../upstream/log.js';
import type { UpstreamObserver } from '../upstream/observer.js';
import type { Clock, Sleep } from '../upstream/resilience/clock.js';
import type { SearchCallOptions } from '../upstream/search-call.js';
import type { SharedStore } from '../upstream/shared-store.js';
import type { SearchCacheOptions } from '../upstream/window-cache.js';

/**
 * Largest upstream body read; a larger one is UPSTREAM_BAD_RESPONSE. It
 * leaves room for results many times as rich as a full page of 50 of the data
 * set's; only the first 50 are read anyway, and JSON.parse holds the event
 * loop for the whole body, so a bound several times larger would stall every
 * request in flight.
 */
export const MAX_UPSTREAM_RESPONSE_BYTES = 1024 * 1024;

/** The lookup service the gateway fronts, and its OAuth2 client credentials. */
export interface UpstreamTarget {
  url: URL;
  clientId: string;
  clientSecret: string;
}

/** What the settings decide of the upstream client: its connections, retries, circuit breaker, budget and token lifetimes. */
export type UpstreamClientSettings = Pick<
  SearchCallOptions,
  'pageParam' | 'retry' | 'callTimeoutMs' | 'refusedCredentialsCooldownMs' | 'tokenLifetime'
> & {
  http: Omit<SearchCallOptions['http'], 'maxResponseBytes'>;
};

/** What the upstream client is given besides its settings: its share of the cache bound, and the gateway's log, clock and watchers. */
export interface UpstreamClientParts {
  cache: SearchCacheOptions;
  log: UpstreamLog;
  clock: Clock;
  shared: SharedStore | undefined;
  tracer: Tracer | undefined;
  observer: UpstreamObserver | undefined;
  sleep: Sleep | undefined;
}

/** The upstream client for `target` as the settings configure it. */
export function upstreamClientFor(settings: UpstreamClientSettings, target: UpstreamTarget, parts: UpstreamClientParts): UpstreamClient {
  return new UpstreamClient({
    ...settings,
    ...parts,
    baseUrl: target.url,
    credentials: { clientId: target.clientId, clientSecret: target.clientSecret },
    http: { ...settings.http, maxResponseBytes: MAX_UPSTREAM_RESPONSE_BYTES },
  });
}
