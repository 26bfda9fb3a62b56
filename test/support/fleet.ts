import { EventEmitter } from 'node:events';
import { readConfig, type GatewayConfig } from '../../src/gateway/config/gateway-config.js';
import { createLogger } from '../../src/gateway/logger.js';
import { optionsOf } from '../../src/gateway/options-from-settings.js';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { startLookupService, type LookupService, type LookupServiceOptions } from '../../src/lookup-service/index.js';
import type { Alarm, Clock } from '../../src/upstream/resilience/clock.js';
import { send, type HttpAnswer } from './http.js';
import { startRedisProxy, type RedisProxy } from './redis-proxy.js';
import { redisTarget, startRedisServer, type RedisServer } from './redis-server.js';

/** The Redis a fleet shares: one server, a cluster, a master with its sentinels. */
export interface FleetRedis {
  /** What the instances' REDIS_URL says. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Several gateways sharing one Redis in front of one embedded lookup service, as a fleet behind a load balancer. */
export interface Fleet<R extends FleetRedis = RedisServer> {
  lookup: LookupService;
  redis: R;
  /** With `redisProxies`, the proxy each instance reaches Redis through, by index. */
  proxies: RedisProxy[];
  gateways: RunningGateway[];
  /** Each gateway's log lines, as written. */
  logs: string[][];
  /** Resolves once gateway `index` has logged `count` lines (counted from its start) containing `text`. */
  logged(index: number, text: string, count?: number): Promise<void>;
  /** Posts a GraphQL request to gateway `index` (round-robin past the last). */
  post(index: number, body: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  /** The first `pageSize` results of a search, asked of gateway `index`. */
  search(index: number, variables: { q: string; jurisdiction: string; after?: string }, pageSize?: number): Promise<SearchAnswer>;
  close(): Promise<void>;
}

export interface SearchAnswer {
  status: number;
  body: {
    data?: {
      searchCompanies: { totalCount: number; stale: boolean; nodes: { name: string }[]; pageInfo: { endCursor: string | null } };
    } | null;
    errors?: { message: string; extensions?: { code?: string } }[];
    extensions?: { warnings?: { code: string }[] };
  };
  ms: number;
}

export interface FleetOptions<R extends FleetRedis = RedisServer> {
  /** Starts the Redis the instances share: by default one redis-server of the fleet's own. */
  redis?: () => Promise<R>;
  instances?: number;
  gateway?: Partial<GatewayConfig>;
  lookup?: LookupServiceOptions;
  /** One clock for every instance (circuit breaker, token, caches) and for Redis's scripts, e.g. a `manualClock()`. */
  clock?: Clock;
  /** A clock of its own for some instances, by index (one running ahead of the others, say); Redis keeps `clock`. */
  instanceClocks?: (Clock | undefined)[];
  /** false: no instance asks for the service token as it starts (the first search does). */
  tokenAtStart?: boolean;
  /** Each instance reaches Redis through a proxy of its own (`fleet.proxies`), to slow or cut its network (one server only). */
  redisProxies?: boolean;
  /** What sets each instance's reads of the fleet's log of purges, by index, e.g. alarms the test rings. */
  purgeCheckAlarms?: (Alarm | undefined)[];
  /** Where the instances' upstream is instead of the lookup service, e.g. a proxy that holds a search. */
  upstreamUrl?: string;
  /** With `redisProxies`: each proxy cut before the instances start (Redis out of reach as they open), until `restore()`. */
  redisCutAtStart?: boolean;
}

export const SEARCH_DOCUMENT = `query Search($q: String!, $jurisdiction: CountryCode!, $pageSize: Int, $after: String) {
  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: $pageSize, after: $after) {
    totalCount stale nodes { name } pageInfo { endCursor }
  }
}`;

/** Starts Redis, the lookup service and the instances, all instances together (as a fleet is deployed) and with the default settings but for `options.gateway`. */
export async function startFleet<R extends FleetRedis = RedisServer>(options: FleetOptions<R> = {}): Promise<Fleet<R>> {
  const redis = await (options.redis ?? (startRedisServer as unknown as () => Promise<R>))();
  const lookup = await startLookupService(options.lookup);
  const count = options.instances ?? 3;
  const proxies = options.redisProxies ? await Promise.all(Array.from({ length: count }, () => startRedisProxy(redis.url))) : [];
  if (options.redisCutAtStart) for (const proxy of proxies) proxy.cut();
  const logs: string[][] = Array.from({ length: count }, () => []);
  const lineAdded = new EventEmitter();
  lineAdded.setMaxListeners(0);
  const starting = logs.map((lines, i) => {
    const config = {
      ...readConfig({}),
      port: 0,
      logLevel: 'info' as const,
      redisUrl: redisTarget(proxies[i]?.url ?? redis.url),
      // Every test client comes from 127.0.0.1, as from one proxy.
      maxConnectionsPerAddress: 0,
      ...options.gateway,
    };
    return startGateway({
      ...optionsOf(config).gateway,
      target: { url: new URL(options.upstreamUrl ?? lookup.url), ...lookup.credentials },
      logger: createLogger(config.logLevel, {
        write: (line: string) => {
          lines.push(line);
          lineAdded.emit('line');
        },
      }),
      clock: options.instanceClocks?.[i] ?? options.clock,
      redisClock: options.clock,
      tokenAtStart: options.tokenAtStart,
      purgeCheckAlarm: options.purgeCheckAlarms?.[i],
    });
  });
  const started = await Promise.allSettled(starting);
  const gateways = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failure = started.find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await lookup.close();
    await redis.stop();
    throw failure.reason;
  }
  const post = (index: number, body: unknown, headers: Record<string, string> = {}) =>
    send(gateways[index % gateways.length]!.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: JSON.stringify(body),
    });
  return {
    lookup,
    redis,
    proxies,
    gateways,
    logs,
    logged(index, text, count = 1) {
      const enough = () => logs[index]!.filter((line) => line.includes(text)).length >= count;
      if (enough()) return Promise.resolve();
      return new Promise((resolve) => {
        const check = () => {
          if (!enough()) return;
          lineAdded.off('line', check);
          resolve();
        };
        lineAdded.on('line', check);
      });
    },
    post,
    async search(index, variables, pageSize = 5) {
      const started = performance.now();
      const answer = await post(index, { query: SEARCH_DOCUMENT, variables: { ...variables, pageSize } });
      return { status: answer.status, body: JSON.parse(answer.text), ms: performance.now() - started };
    },
    async close() {
      await Promise.all(gateways.map((gateway) => gateway.close()));
      await Promise.all(proxies.map((proxy) => proxy.close()));
      await lookup.close();
      await redis.stop();
    },
  };
}
