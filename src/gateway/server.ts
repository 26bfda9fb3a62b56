import { createServer, type IncomingMessage } from 'node:http';
import { setTimeout as pause } from 'node:timers/promises';
import type { Alarm, Clock, Sleep } from '../upstream/resilience/clock.js';
import type { AccessPolicy } from './access/client-access.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { ConnectionCap } from './http/connection-cap.js';
import { createCorsPolicy } from './http/cors.js';
import { RateLimiter } from './limits/rate-limiter.js';
import { SharedRateLimiter } from './limits/shared-rate-limiter.js';
import type { SharedStore } from '../upstream/shared-store.js';
import { accessLoggerOf, type Logger } from './logger.js';
import { GRAPHQL_PATH } from './paths.js';
import { answerUnhandledRequests } from './http/unhandled-requests.js';
import { applySocketTimeouts } from './http/socket-timeouts.js';
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
import { type UpstreamTarget, upstreamClientFor } from './upstream-client-for.js';
import { type GatewayParts, optionsOf } from './options-from-settings.js';
import { httpServerOptions, logAccess } from './http/http-server.js';
import { systemClock } from '../upstream/resilience/clock.js';
import { GatewayMetrics } from './observability/metrics.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { type ObservedResponse, startObserving } from './observability/observed-response.js';
import { Readiness } from './observability/readiness.js';
import { fetchTokenAtStart } from './observability/token-at-start.js';
import { useGraphqlMetrics } from './observability/use-graphql-metrics.js';
import { LiveSettings, type ReloadableSettings } from './reload/live-settings.js';

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
  config: GatewayConfig,
  target: UpstreamTarget,
  logger: Logger,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const parts = optionsOf(config);
  const { caches } = parts;
  const answerBytes = caches.responseCache ? Math.floor(caches.maxBytes * RESPONSE_CACHE_SHARE) : 0;
  const responseCache =
    answerBytes > 0 ? new ResponseCache({ maxBytes: answerBytes, maxTtlMs: caches.ttlMs, clock: options.clock }) : undefined;
  const documentBytes = Math.floor(caches.maxBytes * DOCUMENT_CACHE_SHARE);
  const documents = new DocumentCache(documentBytes);
  const shared = await openSharedStore(parts.sharedState, logger, options.redisClock);
  const metrics = parts.metrics === undefined ? undefined : new GatewayMetrics(parts.access.apiKeys.map((key) => key.id));
  const clock = options.clock ?? systemClock;
  const live = new LiveSettings({ ...parts.access, trustedDocuments: parts.graphql.trustedDocuments });
  const upstream = upstreamClientFor(parts.upstream, target, {
    cache: {
      ttlMs: caches.ttlMs,
      staleWhileRevalidateMs: caches.staleWhileRevalidateMs,
      staleIfErrorMs: caches.staleIfErrorMs,
      maxBytes: caches.maxBytes - answerBytes - documentBytes,
    },
    log: logger,
    clock,
    shared,
    tracer: options.tracing?.tracer,
    observer: metrics,
    sleep: options.sleep,
  });
  const gateway = createGateway({
    upstream,
    limits: { maxQueryLength: parts.limits.searchMaxQueryLength },
    requestDeadlineMs: parts.graphql.requestDeadlineMs,
    deadlineAlarm: options.deadlineAlarm,
    logger,
    protection: { ...parts.graphql, ...parts.limits, trustedDocuments: live.trustedDocuments },
    documents,
    tracingPlugins: options.tracing?.plugins,
    observers: metrics ? [useGraphqlMetrics({ metrics })] : [],
  });
  const redisSharing = shared && (() => shared.sharing);
  const readiness = new Readiness(() => upstream.status(), clock, redisSharing);
  const connectionCap = new ConnectionCap(
    {
      maxConnections: parts.server.connections.maxConnections,
      // Behind proxies every connection comes from one of them: clients are told apart by X-Forwarded-For, in the rate limit.
      maxPerAddress: parts.rateLimit.trustedProxyCount > 0 ? 0 : parts.server.connections.maxPerAddress,
    },
    logger,
  );
  const graphiql =
    graphiqlAvailability(parts.graphql) === 'served'
      ? createGraphiqlResponder({ page: { title: GRAPHIQL_TITLE, defaultQuery: GRAPHIQL_EXAMPLE_QUERY }, logger })
      : undefined;
  const unreadAnswers = new UnreadAnswers(parts.limits.maxResponseBytes * UNREAD_ANSWERS_SHARE, logger);
  const handleRequest = requestHandlerFor(
    parts,
    createYogaResponder(gateway, responseCache, metrics),
    graphiqlRoutesFor(parts.graphql, graphiql),
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
  const server = createServer(httpServerOptions(parts.server.requestTimeouts), served);
  // Without this listener Node sends `100 Continue` before any check has run.
  server.on('checkContinue', (request: IncomingMessage, response: ObservedResponse) => served(request, response, true));
  // Without this listener Node answers other expectations with a bare 417; the request handler refuses them with a coded one.
  server.on('checkExpectation', (request: IncomingMessage, response: ObservedResponse) => served(request, response));
  connectionCap.attach(server);
  applySocketTimeouts(server, parts.server.socketTimeouts, logger);
  const closeUnserved = trackUnservedConnections(server);
  answerUnhandledRequests(server, parts.server.refusalLinger.ms, (refusal) => {
    logger.info({ status: refusal.status, code: refusal.code }, 'Request refused');
    metrics?.unreadRequest(refusal.code);
  });

  const url = await listen(server, parts.server.host, parts.server.port, { host: 'HOST', port: 'PORT' });
  // Gauges read the state they show when scraped; started after the public server, so a scrape finds everything in place.
  metrics?.readFrom({
    upstream: () => upstream.status(),
    cacheBytes: () => ({ upstream_windows: upstream.cacheBytes, responses: responseCache?.bytes ?? 0, documents: documents.bytes }),
    clock,
    redisSharing,
  });
  const metricsServer =
    metrics &&
    (await startMetricsServer(metrics, parts.metrics!.host, parts.metrics!.port).catch(async (error: unknown) => {
      // METRICS_PORT taken: the gateway does not start half-way, holding its public port.
      server.close();
      await upstream.close();
      await shared?.close();
      throw error;
    }));
  const tokenAtStart = options.tokenAtStart === false ? Promise.resolve() : fetchTokenAtStart(upstream, target.clientId, logger);

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
      const { drainDelayMs } = parts.shutdown;
      logger.info({ drainDelayMs }, 'Draining: /ready answers 503');
      if (drainDelayMs > 0) await (options.drainWait ?? pause)(drainDelayMs);
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

/** GraphiQL's routes as the settings decide: served, or refused with the reason it is not (off, or unable to run anything). */
function graphiqlRoutesFor(settings: GatewayParts['graphql'], graphiql: GraphiqlResponder | undefined): GraphiqlRoutes {
  if (graphiql !== undefined) return { served: true, page: graphiql.page, file: graphiql.file };
  const availability = graphiqlAvailability(settings);
  const why = availability === 'trusted-documents-only' ? availability : 'off';
  return { served: false, refusal: () => new GraphiqlUnavailableError(why, settings.production) };
}

/** The checks as the settings configure them, in front of `next`. */
function requestHandlerFor(
  parts: GatewayParts,
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
  const { rateLimit } = parts;
  const local = rateLimit.perMinute > 0 ? new RateLimiter(rateLimit, clock) : undefined;
  return createRequestHandler({
    next,
    cors: createCorsPolicy(parts.cors.allowedOrigins),
    checkAccess,
    // In a fleet, one bucket per client for all instances; this instance's buckets stand in while the store is away.
    rateLimiter: local && shared ? new SharedRateLimiter(local, shared, rateLimit.perMinute) : local,
    maxBodyBytes: parts.limits.maxBodyBytes,
    batchingLimit: parts.limits.batchingLimit,
    trustedProxyCount: rateLimit.trustedProxyCount,
    graphiql,
    connectionOverCap,
    refusalLinger: parts.server.refusalLinger,
    logger,
    answerReady: (response) => readiness.answer(response),
    onRateLimited: metrics
      ? (client) => metrics.rateLimited(client.kind, client.kind === 'api-key' ? client.key.slice('key:'.length) : '')
      : () => {},
    answered: (response) => unreadAnswers.written(response),
  });
}
