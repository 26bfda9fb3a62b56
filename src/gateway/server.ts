import { createServer, type IncomingMessage, type ServerOptions } from 'node:http';
import { setTimeout as pause } from 'node:timers/promises';
import type { Alarm, Clock, Sleep } from '../upstream/resilience/clock.js';
import type { AccessPolicy } from './access/client-access.js';
import type { GatewayConfig, UpstreamTarget } from './config/gateway-config.js';
import { ConnectionCap } from './http/connection-cap.js';
import { createCorsPolicy } from './http/cors.js';
import { RateLimiter } from './limits/rate-limiter.js';
import { SharedRateLimiter } from './limits/shared-rate-limiter.js';
import type { SharedStore } from '../upstream/shared-store.js';
import { accessLoggerOf, loggedPath, type Logger } from './logger.js';
import { GRAPHQL_PATH } from './paths.js';
import { answerUnhandledRequests } from './http/unhandled-requests.js';
import { applySocketTimeouts, type SocketTimeouts } from './http/socket-timeouts.js';
import { listen } from './http/listen.js';
import { UNREAD_ANSWERS_SHARE, UnreadAnswers } from './http/unread-answers.js';
import { trackUnservedConnections } from './http/unserved-connections.js';
import { createRequestHandler, type GraphiqlRoutes, type RequestHandler, type RequestHandlerOptions } from './http/request-handler.js';
import { ResponseCache, RESPONSE_CACHE_SHARE } from './response-cache/response-cache.js';
import { DOCUMENT_CACHE_SHARE, DocumentCache } from './graphql/document-cache.js';
import { createGateway } from './graphql/yoga.js';
import { createYogaResponder } from './response-cache/yoga-responder.js';
import { graphiqlAvailability } from './graphiql/availability.js';
import { GRAPHIQL_EXAMPLE_QUERY } from './graphiql/graphiql-example.js';
import { createGraphiqlResponder, type GraphiqlResponder } from './graphiql/graphiql-responder.js';
import { GraphiqlUnavailableError } from '../errors/http-refusals.js';
import type { Tracing } from './observability/tracing.js';
import { openSharedStore } from './shared-store.js';
import { upstreamClientFor } from './upstream-client-for.js';
import { systemClock } from '../upstream/resilience/clock.js';
import { GatewayMetrics } from './observability/metrics.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { ObservedResponse, startObserving } from './observability/observed-response.js';
import { Readiness } from './observability/readiness.js';
import { fetchTokenAtStart } from './observability/token-at-start.js';
import { useGraphqlMetrics } from './observability/use-graphql-metrics.js';
import { LiveSettings, type ReloadableSettings } from './reload/live-settings.js';

/** How long a keep-alive connection may sit idle between requests. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Longest pause between Node's checks of the headers and request timeouts:
 * a slow client is dropped at most this long after its time is up. Node's
 * default, 30 s, held a client that never finished its headers for 60–90 s.
 */
export const MAX_CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/** A tenth of the headers timeout, so short timeouts hold as closely as long ones, and at most MAX_CONNECTIONS_CHECK_INTERVAL_MS. */
export function connectionsCheckingIntervalFor(headersTimeoutMs: number): number {
  return Math.min(MAX_CONNECTIONS_CHECK_INTERVAL_MS, Math.ceil(headersTimeoutMs / 10));
}

/** How long open requests may finish after shutdown begins. */
export const SHUTDOWN_GRACE_MS = 10_000;

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
  /** Resolves once the token asked for at start has come, or failed (logged); at once when none was asked for. */
  tokenAtStart: Promise<void>;
  /** Puts reloaded access settings and trusted documents in effect for the requests that arrive from now on (reload/). */
  reload(settings: ReloadableSettings): void;
  /** /ready answers 503 from now on, then, after SHUTDOWN_DRAIN_DELAY_MS, no connection is accepted and the requests in flight finish. */
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** Time for the upstream's circuit breaker and token, the caches' TTLs and the rate limit's refill; tests move it on instead of sleeping. */
  clock?: Clock | undefined;
  /** With REDIS_URL, the fleet's one clock its scripts judge ages and waits by: Redis's own unless a test gives its own. */
  redisClock?: Clock | undefined;
  /** Where tracing is on: the hooks that make the gateway's spans. */
  tracing?: Tracing | undefined;
  /** Ask for the upstream token at start (default true), so refused credentials show at once. */
  tokenAtStart?: boolean | undefined;
  /** How the drain delay is waited out; tests end it when they choose. */
  drainWait?: ((ms: number) => Promise<void>) | undefined;
  /** Waits out the upstream retries' backoffs; tests see them instead of sitting through them. */
  sleep?: Sleep | undefined;
  /** What rings each request's deadline (REQUEST_DEADLINE_MS) while it waits for the upstream; tests ring it when they choose. */
  deadlineAlarm?: Alarm | undefined;
}

/** The title of GraphiQL's page. */
export const GRAPHIQL_TITLE = 'Company search';

/** Builds the upstream client and the gateway for `target`, and listens on the configured address. */
export async function startGateway(
  config: Omit<GatewayConfig, 'upstream'>,
  target: UpstreamTarget,
  logger: Logger,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const answerBytes = config.responseCache ? Math.floor(config.cacheMaxBytes * RESPONSE_CACHE_SHARE) : 0;
  const responseCache =
    answerBytes > 0 ? new ResponseCache({ maxBytes: answerBytes, maxTtlMs: config.cacheTtlMs, clock: options.clock }) : undefined;
  const documentBytes = Math.floor(config.cacheMaxBytes * DOCUMENT_CACHE_SHARE);
  const documents = new DocumentCache(documentBytes);
  const shared = await openSharedStore(config, logger, options.redisClock);
  const metrics = config.metricsPort === undefined ? undefined : new GatewayMetrics(config.apiKeys.map((key) => key.id));
  const clock = options.clock ?? systemClock;
  const live = new LiveSettings(config);
  const upstream = upstreamClientFor(config, target, {
    cacheMaxBytes: config.cacheMaxBytes - answerBytes - documentBytes,
    log: logger,
    clock,
    shared,
    tracer: options.tracing?.tracer,
    observer: metrics,
    sleep: options.sleep,
  });
  const gateway = createGateway({
    upstream,
    limits: { maxQueryLength: config.searchMaxQueryLength },
    requestDeadlineMs: config.requestDeadlineMs,
    deadlineAlarm: options.deadlineAlarm,
    logger,
    protection: { ...config, trustedDocuments: live.trustedDocuments },
    documents,
    tracingPlugins: options.tracing?.plugins,
    observers: metrics ? [useGraphqlMetrics({ metrics })] : [],
  });
  const redisSharing = shared && (() => shared.state);
  const readiness = new Readiness(() => upstream.status(), clock, redisSharing);
  const connectionCap = new ConnectionCap(
    {
      maxConnections: config.maxConnections,
      // Behind proxies every connection comes from one of them: clients are told apart by X-Forwarded-For, in the rate limit.
      maxPerAddress: config.trustedProxyCount > 0 ? 0 : config.maxConnectionsPerAddress,
    },
    logger,
  );
  const graphiql =
    graphiqlAvailability(config) === 'served'
      ? createGraphiqlResponder({ page: { title: GRAPHIQL_TITLE, defaultQuery: GRAPHIQL_EXAMPLE_QUERY }, logger })
      : undefined;
  const unreadAnswers = new UnreadAnswers(config.maxResponseBytes * UNREAD_ANSWERS_SHARE, logger);
  const handleRequest = requestHandlerFor(
    config,
    createYogaResponder(gateway, responseCache, metrics),
    graphiqlRoutesFor(config, graphiql),
    live.checkAccess,
    logger,
    (socket) => connectionCap.refusalFor(socket),
    shared,
    readiness,
    metrics,
    options.clock,
    unreadAnswers,
  );

  const accessLogger = accessLoggerOf(logger);
  let closing = false;
  // One listener for every response (`this`), rather than a closure made for each.
  function finished(this: ObservedResponse): void {
    // Once shutdown has begun, a keep-alive connection is closed as soon as it falls idle.
    if (closing) server.closeIdleConnections();
    const durationMs = logAccess(accessLogger, this);
    metrics?.request(this.outcome, durationMs / 1000, this.refusalCode);
  }
  const serve = (request: IncomingMessage, response: ObservedResponse, continueFirst = false) => {
    startObserving(request, response);
    if (closing) response.setHeader('connection', 'close');
    // 'finish' comes once: on() spares once()'s wrapper.
    response.on('finish', finished);
    handleRequest(request, response, continueFirst);
  };
  const served = options.tracing ? options.tracing.traceRequests(serve) : serve;
  const server = createServer(httpServerOptions(config), served);
  // Without this listener Node sends `100 Continue` before any check has run.
  server.on('checkContinue', (request: IncomingMessage, response: ObservedResponse) => served(request, response, true));
  // Without this listener Node answers other expectations with a bare 417; the request handler refuses them with a coded one.
  server.on('checkExpectation', (request: IncomingMessage, response: ObservedResponse) => served(request, response));
  connectionCap.attach(server);
  applySocketTimeouts(server, socketTimeoutsOf(config), logger);
  const closeUnserved = trackUnservedConnections(server);
  answerUnhandledRequests(server, config.refusalLingerMs, (refusal) => {
    logger.info({ status: refusal.status, code: refusal.code }, 'Request refused');
    metrics?.unreadRequest(refusal.code);
  });

  const url = await listen(server, config.host, config.port, { host: 'HOST', port: 'PORT' });
  // Gauges read the state they show when scraped; started after the public server, so a scrape finds everything in place.
  metrics?.readFrom({
    upstream: () => upstream.status(),
    cacheBytes: () => ({ upstream_windows: upstream.cacheBytes, responses: responseCache?.bytes ?? 0, documents: documents.bytes }),
    clock,
    redisSharing,
  });
  const metricsServer =
    metrics &&
    (await startMetricsServer(metrics, config.metricsHost, config.metricsPort!).catch(async (error: unknown) => {
      // METRICS_PORT taken: the gateway does not start half-way, holding its public port.
      server.close();
      await upstream.close();
      await shared?.close();
      throw error;
    }));
  const tokenAtStart =
    options.tokenAtStart === false ? Promise.resolve() : fetchTokenAtStart(upstream, target.clientId, logger, shared?.known());

  return {
    url,
    graphqlUrl: `${url}${GRAPHQL_PATH}`,
    graphiqlUrl: graphiql === undefined ? undefined : `${url}${GRAPHQL_PATH}`,
    get cacheBytes() {
      return upstream.cacheBytes + (responseCache?.bytes ?? 0) + documents.bytes;
    },
    get unreadAnswerBytes() {
      return unreadAnswers.bytes;
    },
    metricsUrl: metricsServer?.url,
    tokenAtStart,
    reload(settings) {
      // An answer kept for a document no longer trusted must not outlive it.
      if (live.replace(settings)) responseCache?.clear();
    },
    async close() {
      readiness.startDraining();
      logger.info({ drainDelayMs: config.shutdownDrainDelayMs }, 'Draining: /ready answers 503');
      if (config.shutdownDrainDelayMs > 0) await (options.drainWait ?? pause)(config.shutdownDrainDelayMs);
      closing = true;
      // close() also closes the keep-alive connections idle now (Node 19+); the 'finish' handler above closes the rest as they fall idle.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Connections that never brought a request (silent, or headers still coming) have nothing to finish.
      closeUnserved();
      const forced = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await closed;
      clearTimeout(forced);
      await Promise.all([upstream.close(), metricsServer?.close()]);
      await shared?.close();
    },
  };
}

type ServerTimeouts = Pick<GatewayConfig, 'headersTimeoutMs' | 'requestTimeoutMs' | 'idleSocketTimeoutMs' | 'responseWriteTimeoutMs'>;

/**
 * node:http's settings for the gateway's server. Slow clients only hold
 * sockets: headers not in by HEADERS_TIMEOUT_MS, or the whole request by
 * REQUEST_TIMEOUT_MS, get 408 and a close.
 */
export function httpServerOptions(config: ServerTimeouts): ServerOptions<typeof IncomingMessage, typeof ObservedResponse> {
  return {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: connectionsCheckingIntervalFor(config.headersTimeoutMs),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // Node answers an HTTP/1.1 request without Host with a bare 400; the request handler refuses it with a coded one.
    requireHostHeader: false,
    // Each response carries its request id and outcome, for the logs, the errors and the metrics.
    ServerResponse: ObservedResponse,
  };
}

/** The timeouts applySocketTimeouts holds the server's connections to (http/socket-timeouts.ts). */
export function socketTimeoutsOf(config: ServerTimeouts): SocketTimeouts {
  return { idleMs: config.idleSocketTimeoutMs, answerWriteMs: config.responseWriteTimeoutMs };
}

/** Writes the one line every request gets, once its answer is written; returns the request's duration in ms. */
export function logAccess(accessLogger: Logger, response: ObservedResponse): number {
  const durationMs = performance.now() - response.startedAt;
  accessLogger.info(
    {
      method: response.req.method,
      path: loggedPath(response.req.url),
      status: response.statusCode,
      durationMs: Math.round(durationMs * 100) / 100,
      requestId: response.requestId,
    },
    'request',
  );
  return durationMs;
}

/** GraphiQL's routes as the settings decide: served, or refused with the reason it is not (off, or unable to run anything). */
function graphiqlRoutesFor(config: Omit<GatewayConfig, 'upstream'>, graphiql: GraphiqlResponder | undefined): GraphiqlRoutes {
  if (graphiql !== undefined) return { served: true, page: graphiql.page, file: graphiql.file };
  const availability = graphiqlAvailability(config);
  const why = availability === 'trusted-documents-only' ? availability : 'off';
  return { served: false, refusal: () => new GraphiqlUnavailableError(why, config.production) };
}

/** The checks as the settings configure them, in front of `next`. */
function requestHandlerFor(
  config: Omit<GatewayConfig, 'upstream'>,
  next: RequestHandlerOptions['next'],
  graphiql: GraphiqlRoutes | undefined,
  checkAccess: AccessPolicy,
  logger: Logger,
  connectionOverCap: RequestHandlerOptions['connectionOverCap'],
  shared: SharedStore | undefined,
  readiness: Readiness,
  metrics: GatewayMetrics | undefined,
  clock: Clock | undefined,
  unreadAnswers: UnreadAnswers,
): RequestHandler {
  const local =
    config.rateLimitPerMinute > 0
      ? new RateLimiter(
          { perMinute: config.rateLimitPerMinute, burst: config.rateLimitBurst, maxClients: config.rateLimitMaxClients },
          clock,
        )
      : undefined;
  return createRequestHandler({
    next,
    cors: createCorsPolicy(config.corsAllowedOrigins),
    checkAccess,
    // In a fleet, one bucket per client for all instances; this instance's buckets stand in while the store is away.
    rateLimiter: local && shared ? new SharedRateLimiter(local, shared, config.rateLimitPerMinute) : local,
    maxBodyBytes: config.maxBodyBytes,
    batchingLimit: config.batchingLimit,
    trustedProxyCount: config.trustedProxyCount,
    graphiql,
    connectionOverCap,
    refusalLinger: { ms: config.refusalLingerMs, bytes: config.refusalLingerBytes },
    logger,
    answerReady: (response) => readiness.answer(response),
    onRateLimited: metrics
      ? (client) => metrics.rateLimited(client.kind, client.kind === 'api-key' ? client.key.slice('key:'.length) : '')
      : () => {},
    answered: (response) => unreadAnswers.written(response),
  });
}
