import { setTimeout as pause } from 'node:timers/promises';
import { GraphiqlUnavailableError } from '../errors/http-refusals.js';
import { type Alarm, type Clock, type Sleep, systemClock } from '../upstream/resilience/clock.js';
import { graphiqlAvailability } from './graphiql/availability.js';
import { GRAPHIQL_EXAMPLE_QUERY } from './graphiql/graphiql-example.js';
import { createGraphiqlResponder, type GraphiqlResponder } from './graphiql/graphiql-responder.js';
import { DOCUMENT_CACHE_SHARE, DocumentCache } from './graphql/document-cache.js';
import { createGateway } from './graphql/yoga.js';
import { ConnectionCap } from './http/connection-cap.js';
import { createCorsPolicy } from './http/cors.js';
import { startHttpServer } from './http/http-server.js';
import { createRequestHandler, type GraphiqlRoutes } from './http/request-handler.js';
import { UNREAD_ANSWERS_SHARE, UnreadAnswers } from './http/unread-answers.js';
import { clientRateLimitFor } from './limits/shared-rate-limiter.js';
import type { AccessSettings } from './access/client-access.js';
import type { GraphqlSettings, RequestLimitSettings } from './config/settings.js';
import type { HttpServerOptions } from './http/http-server.js';
import type { RateLimitSettings } from './limits/rate-limiter.js';
import type { Logger } from './logger.js';
import { GatewayMetrics } from './observability/metrics.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { Readiness } from './observability/readiness.js';
import { fetchTokenAtStart } from './observability/token-at-start.js';
import type { Tracing } from './observability/tracing.js';
import { useGraphqlMetrics } from './observability/use-graphql-metrics.js';
import { GRAPHQL_PATH } from './paths.js';
import { LiveSettings, type ReloadableSettings } from './reload/live-settings.js';
import { RESPONSE_CACHE_SHARE, ResponseCache } from './response-cache/response-cache.js';
import { createYogaResponder } from './response-cache/yoga-responder.js';
import { HttpCaching, type HttpCachingOptions } from './response-cache/http-caching.js';
import { type AdminServerOptions, openAdminRoom } from './admin/admin-room.js';
import { openSharedStore, type SharedStateOptions } from './shared-store.js';
import { type UpstreamClientSettings, type UpstreamTarget, upstreamClientFor } from './upstream-client-for.js';

/** How long open requests may finish after shutdown begins. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** The title of GraphiQL's page. */
export const GRAPHIQL_TITLE = 'Company search';

/** The parts of the gateway, each with the options its settings give it (options-from-settings.ts makes them). */
export interface GatewayParts {
  server: HttpServerOptions;
  upstream: UpstreamClientSettings;
  caches: CacheOptions;
  /** Who may call; a reload replaces it whole. */
  access: AccessSettings;
  graphql: GraphqlOptions;
  /** How much one request may ask for: its body, its document, the searches it starts, its answer. */
  limits: RequestLimitSettings;
  /** The origins whose pages may read answers (`*`: any). */
  cors: { allowedOrigins: readonly string[] };
  rateLimit: RateLimitOptions;
  /** Unset without REDIS_URL: each instance keeps its own state. */
  sharedState: SharedStateOptions | undefined;
  /** The Prometheus metrics server; unset without METRICS_PORT, and then no metrics are kept. */
  metrics: { host: string; port: number } | undefined;
  /** How long /ready answers 503 before the server stops accepting connections. */
  shutdown: { drainDelayMs: number };
  /** The admin server (purges); unset without ADMIN_PORT. Purges still follow the fleet's log either way. */
  admin: AdminServerOptions | undefined;
}

/** The search-window cache, the response cache and the parsed-document cache, within one byte bound. */
export interface CacheOptions {
  maxBytes: number;
  /** How long a window is fresh; no answer is reused longer. */
  ttlMs: number;
  staleWhileRevalidateMs: number;
  staleIfErrorMs: number;
  /** Whether answers to requests repeated byte for byte are reused. */
  responseCache: boolean;
  /** The header GET answers carry their tags in for a CDN (CDN_TAG_HEADER); unset: none. */
  tagHeader: HttpCachingOptions['tagHeader'];
}

/** What Yoga serves and runs, and how long a request waits for the upstream. */
export interface GraphqlOptions extends GraphqlSettings {
  /** NODE_ENV=production: no field suggestions; GraphiQL's refusal says how to turn it on. */
  production: boolean;
  requestDeadlineMs: number;
}

/** How often one client may ask, and how many proxies' X-Forwarded-For entries tell clients apart. */
export interface RateLimitOptions extends RateLimitSettings {
  trustedProxyCount: number;
}

/** What the gateway is made of, by name: each part's options, and what whoever starts it gives. */
export interface GatewayOptions extends GatewayParts {
  /** The lookup service fronted: UPSTREAM_URL's, or the embedded one's. */
  target: UpstreamTarget;
  logger: Logger;
  /** Where tracing is on: the hooks that make the gateway's spans. */
  tracing?: Tracing | undefined;
  /** Ask for the upstream token at start (default true), so refused credentials show at once. */
  tokenAtStart?: boolean | undefined;
  /** Time for the upstream's circuit breaker and token, the caches' TTLs and the rate limit's refill; tests move it on instead of sleeping. */
  clock?: Clock | undefined;
  /** With REDIS_URL, the fleet's one clock its scripts judge ages and waits by: Redis's own unless a test gives its own. */
  redisClock?: Clock | undefined;
  /** How the drain delay is waited out; tests end it when they choose. */
  drainWait?: ((ms: number) => Promise<void>) | undefined;
  /** Waits out the upstream retries' backoffs; tests see them instead of sitting through them. */
  sleep?: Sleep | undefined;
  /** What rings each request's deadline (REQUEST_DEADLINE_MS) while it waits for the upstream; tests ring it when they choose. */
  deadlineAlarm?: Alarm | undefined;
  /** What sets each read of the fleet's log of purges (every second); tests ring it when they choose. */
  purgeCheckAlarm?: Alarm | undefined;
}

export interface RunningGateway {
  /** Base URL, e.g. `http://127.0.0.1:4000`. */
  url: string;
  graphqlUrl: string;
  /** Where GraphiQL opens; undefined where it is not served. */
  graphiqlUrl: string | undefined;
  /** Bytes the caches hold now: upstream windows, serialized answers and parsed documents together, within CACHE_MAX_BYTES. */
  readonly cacheBytes: number;
  /** Bytes of answers held now for clients that have not taken them in, within UNREAD_ANSWERS_SHARE times MAX_RESPONSE_BYTES. */
  readonly unreadAnswerBytes: number;
  /** Where Prometheus scrapes, with METRICS_PORT set. */
  metricsUrl: string | undefined;
  /** The admin server's base URL (`POST /purge`), with ADMIN_PORT set. */
  adminUrl: string | undefined;
  /** Resolves once the token asked for at start has come, or failed (logged); at once when none was asked for. */
  tokenAtStart: Promise<void>;
  /** Puts reloaded access settings and trusted documents in effect for the requests that arrive from now on (reload/). */
  reload(settings: ReloadableSettings): void;
  /** /ready answers 503 from now on, then, after SHUTDOWN_DRAIN_DELAY_MS, no connection is accepted and the requests in flight finish. */
  close(): Promise<void>;
}

/** Builds every part of the gateway from its options, and listens on the configured address. */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const shares = cacheShares(options.caches);
  const responseCache =
    shares.answers > 0 ? new ResponseCache({ maxBytes: shares.answers, maxTtlMs: options.caches.ttlMs, clock: options.clock }) : undefined;
  const documents = new DocumentCache(shares.documents);
  const shared = await openSharedStore(options.sharedState, logger, options.redisClock);
  const metrics =
    options.metrics &&
    new GatewayMetrics(
      options.access.apiKeys.map((key) => key.id),
      {
        cacheMaxBytes: options.caches.maxBytes,
        upstreamMaxCallsPerMinute: options.upstream.http.maxCallsPerMinute,
        maxConnections: options.server.connections.maxConnections,
      },
    );
  const live = new LiveSettings({ ...options.access, trustedDocuments: options.graphql.trustedDocuments });
  const { ttlMs, staleWhileRevalidateMs, staleIfErrorMs } = options.caches;
  const upstream = upstreamClientFor(options.upstream, options.target, {
    cache: { ttlMs, staleWhileRevalidateMs, staleIfErrorMs, maxBytes: shares.windows },
    log: logger,
    clock,
    shared,
    tracer: options.tracing?.tracer,
    observer: metrics,
    sleep: options.sleep,
  });
  const gateway = createGateway({
    upstream,
    limits: { maxQueryLength: options.limits.searchMaxQueryLength },
    requestDeadlineMs: options.graphql.requestDeadlineMs,
    deadlineAlarm: options.deadlineAlarm,
    logger,
    protection: { ...options.graphql, ...options.limits, trustedDocuments: live.trustedDocuments },
    documents,
    tracingPlugins: options.tracing?.plugins,
    observers: metrics ? [useGraphqlMetrics({ metrics })] : [],
  });
  // Follows the fleet's purges from before the first request, so that nothing cached here predates one unseen.
  const admin = await openAdminRoom(
    { server: options.admin, windowKeepMs: ttlMs + Math.max(staleWhileRevalidateMs, staleIfErrorMs) },
    { upstream, responseCache, shared, logger, purgeCheckAlarm: options.purgeCheckAlarm },
  );
  const redisSharing = shared && (() => shared.state);
  const readiness = new Readiness(() => upstream.status(), clock, redisSharing);
  const { trustedProxyCount } = options.rateLimit;
  const connectionCap = new ConnectionCap(
    {
      maxConnections: options.server.connections.maxConnections,
      // Behind proxies every connection comes from one of them: clients are told apart by X-Forwarded-For, in the rate limit.
      maxPerAddress: trustedProxyCount > 0 ? 0 : options.server.connections.maxPerAddress,
    },
    logger,
  );
  const graphiql =
    graphiqlAvailability(options.graphql) === 'served'
      ? createGraphiqlResponder({ page: { title: GRAPHIQL_TITLE, defaultQuery: GRAPHIQL_EXAMPLE_QUERY }, logger })
      : undefined;
  const unreadAnswers = new UnreadAnswers(options.limits.maxResponseBytes * UNREAD_ANSWERS_SHARE, logger);
  const handleRequest = createRequestHandler({
    next: createYogaResponder(gateway, responseCache, httpCachingFor(options, live, clock), metrics),
    cors: createCorsPolicy(options.cors.allowedOrigins),
    checkAccess: live.checkAccess,
    rateLimiter: clientRateLimitFor(options.rateLimit, shared, options.clock),
    maxBodyBytes: options.limits.maxBodyBytes,
    batchingLimit: options.limits.batchingLimit,
    trustedProxyCount,
    graphiql: graphiqlRoutesFor(options.graphql, graphiql),
    connectionOverCap: (socket) => connectionCap.refusalFor(socket),
    refusalLinger: options.server.refusalLinger,
    logger,
    answerReady: (response) => readiness.answer(response),
    onRateLimited: metrics
      ? (client) => metrics.rateLimited(client.kind, client.kind === 'api-key' ? client.key.slice('key:'.length) : '')
      : () => {},
    answered: (response) => unreadAnswers.written(response),
  });
  const http = await startHttpServer({
    options: options.server,
    handleRequest,
    connectionCap,
    logger,
    tracing: options.tracing,
    answered: (response, durationMs) => metrics?.request(response.outcome, durationMs / 1000, response.refusalCode),
    refusedUnhandled: (refusal) => metrics?.unreadRequest(refusal.code),
  });

  // Gauges read the state they show when scraped; started after the public server, so a scrape finds everything in place.
  metrics?.readFrom({
    upstream: () => upstream.status(),
    cacheBytes: () => ({ upstream_windows: upstream.cacheBytes, responses: responseCache?.bytes ?? 0, documents: documents.bytes }),
    clock,
    redisSharing,
    connections: () => http.connections(),
  });
  // METRICS_PORT or ADMIN_PORT taken: the gateway does not start half-way, holding its public port.
  const stopHalfStarted = async (error: unknown): Promise<never> => {
    http.abort();
    admin.close();
    await upstream.close();
    await shared?.close();
    throw error;
  };
  const metricsServer = metrics && (await startMetricsServer(metrics, options.metrics!.host, options.metrics!.port).catch(stopHalfStarted));
  const adminServer = await admin.listen().catch(async (error: unknown) => {
    await metricsServer?.close();
    return stopHalfStarted(error);
  });
  const tokenAtStart =
    options.tokenAtStart === false ? Promise.resolve() : fetchTokenAtStart(upstream, options.target.clientId, logger, shared?.known());

  return {
    url: http.url,
    graphqlUrl: `${http.url}${GRAPHQL_PATH}`,
    graphiqlUrl: graphiql === undefined ? undefined : `${http.url}${GRAPHQL_PATH}`,
    get cacheBytes() {
      return upstream.cacheBytes + (responseCache?.bytes ?? 0) + documents.bytes;
    },
    get unreadAnswerBytes() {
      return unreadAnswers.bytes;
    },
    metricsUrl: metricsServer?.url,
    adminUrl: adminServer?.url,
    tokenAtStart,
    reload(settings) {
      // An answer kept for a document no longer trusted must not outlive it.
      if (live.replace(settings)) responseCache?.clear();
    },
    async close() {
      readiness.startDraining();
      const { drainDelayMs } = options.shutdown;
      logger.info({ drainDelayMs }, 'Draining: /ready answers 503');
      if (drainDelayMs > 0) await (options.drainWait ?? pause)(drainDelayMs);
      await http.close(SHUTDOWN_GRACE_MS);
      admin.close();
      await Promise.all([upstream.close(), metricsServer?.close(), adminServer?.close()]);
      await shared?.close();
    },
  };
}

/** CACHE_MAX_BYTES shared out: serialized answers (with RESPONSE_CACHE), parsed documents, and the rest for upstream windows. */
function cacheShares({ maxBytes, responseCache }: CacheOptions): { answers: number; documents: number; windows: number } {
  const answers = responseCache ? Math.floor(maxBytes * RESPONSE_CACHE_SHARE) : 0;
  const documents = Math.floor(maxBytes * DOCUMENT_CACHE_SHARE);
  return { answers, documents, windows: maxBytes - answers - documents };
}

/** What GET answers tell HTTP caches, as the options decide: public while anyone may call (as reloaded), with the caches' TTL and stale rules. */
function httpCachingFor({ caches }: GatewayParts, live: LiveSettings, clock: Clock): HttpCaching {
  return new HttpCaching({
    scope: () => (live.allowsAnonymous ? 'public' : 'private'),
    maxTtlMs: caches.ttlMs,
    staleWhileRevalidateMs: caches.staleWhileRevalidateMs,
    staleIfErrorMs: caches.staleIfErrorMs,
    tagHeader: caches.tagHeader,
    clock,
  });
}

/** GraphiQL's routes as the settings decide: served, or refused with the reason it is not (off, or unable to run anything). */
function graphiqlRoutesFor(settings: GatewayParts['graphql'], graphiql: GraphiqlResponder | undefined): GraphiqlRoutes {
  if (graphiql !== undefined) return { served: true, page: graphiql.page, file: graphiql.file };
  const availability = graphiqlAvailability(settings);
  const why = availability === 'trusted-documents-only' ? availability : 'off';
  return { served: false, refusal: () => new GraphiqlUnavailableError(why, settings.production) };
}
