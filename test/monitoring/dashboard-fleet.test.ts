import { fileURLToPath } from 'node:url';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLookupService, type LookupService } from '../../src/lookup-service/index.js';
import { RULES_FILE } from '../../scripts/monitoring/prometheus-rule.js';
import { type DashboardJson, type DashboardQuery, dashboardQueries, readDashboard, substituted } from '../support/dashboard.js';
import { GatewayProcess } from '../support/gateway-process.js';
import { send } from '../support/http.js';
import { type PrometheusServer, type Sample, startPrometheus } from '../support/prometheus-server.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { PROCESS_START_MS } from '../support/within.js';

/**
 * The dashboard against the real thing: three gateway processes sharing one
 * Redis in front of the embedded lookup service, Debian's Prometheus scraping
 * them every second with the alert rules loaded, and traffic driven through
 * faults switched on and off (upstream 5xx and 429, a Redis outage, clients
 * over their rate limit). Every panel's query is evaluated by Prometheus as
 * Grafana would send it; those a fault should move are watched until they do.
 */

const KEYS = { web: 'w'.repeat(40), batch: 'b'.repeat(40) };
/** `$__rate_interval` as Grafana makes it for a 1 s scrape, with room for the scrapes a busy machine delays. */
const RANGES = { rateInterval: '10s', range: '1h' };
/**
 * A safety bound on the wait for Prometheus to show what a fault does: far beyond the few scrapes it takes. It fails
 * the test naming what did not show, and is never a measure of how quick anything is.
 */
const SHOW_MS = 180_000;
/** Between two rounds of traffic: the fleet's clients pace themselves, as real ones do. */
const ROUND_PAUSE_MS = 100;
/** Requests a client over its rate limit sends at once, above RATE_LIMIT_BURST. */
const BURST = 60;

let lookup: LookupService;
let redis: RedisServer;
let gateways: GatewayProcess[] = [];
let prometheus: PrometheusServer;
let dashboard: DashboardJson;
let queries: DashboardQuery[];
let round = 0;

beforeAll(async () => {
  dashboard = readDashboard();
  queries = dashboardQueries(dashboard);
  redis = await startRedisServer();
  lookup = await startLookupService();
  const settings = {
    UPSTREAM_URL: lookup.url,
    UPSTREAM_CLIENT_ID: lookup.credentials.clientId,
    UPSTREAM_CLIENT_SECRET: lookup.credentials.clientSecret,
    REDIS_URL: redis.url,
    METRICS_PORT: '0',
    GATEWAY_API_KEYS: `web:${KEYS.web},batch:${KEYS.batch}`,
    ALLOW_ANONYMOUS: 'true',
    // Room for the steady traffic of one key; a burst of BURST goes over it.
    RATE_LIMIT_PER_MINUTE: '12000',
    RATE_LIMIT_BURST: '30',
    // Every client here comes from 127.0.0.1.
    MAX_CONNECTIONS_PER_ADDRESS: '0',
    UPSTREAM_MAX_CALLS_PER_MINUTE: '100000',
    // Faults end within the test: the circuit tries again after a second, retries back off from 10 ms.
    UPSTREAM_BREAKER_COOLDOWN_MS: '1000',
    UPSTREAM_RETRY_BASE_MS: '10',
  };
  const started = await Promise.allSettled([0, 1, 2].map(() => GatewayProcess.start(settings)));
  gateways = started.flatMap((one) => (one.status === 'fulfilled' ? [one.value] : []));
  const failed = started.find((one) => one.status === 'rejected');
  if (failed) throw failed.reason;
  prometheus = await startPrometheus({
    job: 'gateway',
    targets: gateways.map((gateway) => new URL(gateway.metricsUrl).host),
    ruleFiles: [fileURLToPath(RULES_FILE)],
  });
}, 3 * PROCESS_START_MS);

afterAll(async () => {
  await prometheus?.stop();
  await Promise.all(gateways.map(stopGateway));
  await lookup?.close();
  await redis?.stop();
}, PROCESS_START_MS);

async function stopGateway(gateway: GatewayProcess): Promise<void> {
  gateway.signal('SIGTERM');
  const timer = setTimeout(() => gateway.kill(), 30_000);
  await gateway.exited;
  clearTimeout(timer);
}

function post(gateway: GatewayProcess, query: string, key?: keyof typeof KEYS): Promise<number> {
  return send(gateway.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key && { 'x-api-key': KEYS[key] }) },
    body: JSON.stringify({ query }),
  }).then((answer) => answer.status);
}

const search = (q: string) => `{ searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount } }`;

/**
 * One round of ordinary traffic, on each instance: a search new to the fleet (a call upstream), the one another
 * instance made last round (found in the fleet store on Redis) and one it answers from its response cache.
 */
async function trafficRound(): Promise<void> {
  round += 1;
  await Promise.all(
    gateways.flatMap((gateway, i) => [
      post(gateway, search(`fleet ${round} ${i}`), 'web'),
      post(gateway, search(`fleet ${round - 1} ${(i + 1) % gateways.length}`), 'web'),
      post(gateway, search('holdings'), 'web'),
    ]),
  );
}

/** The panel's query (the one of `legend` where it has several) evaluated now, as Grafana sends it. */
async function panelNow(panel: string, legend?: string): Promise<Sample[]> {
  const of = queries.filter((query) => query.panel === panel && (legend === undefined || query.legend === legend));
  if (of.length !== 1)
    throw new Error(`The dashboard has ${of.length} queries of panel "${panel}"${legend ? ` with legend "${legend}"` : ''}`);
  return prometheus.query(substituted(of[0]!.expr, dashboard, RANGES));
}

/** Series of a panel's query: those with these labels, summed (all of them, without). */
interface Watched {
  panel: string;
  legend?: string;
  series?: Record<string, string>;
}

/** What a fault should do to a panel's series. */
interface Move extends Watched {
  direction: 'up' | 'down';
}

async function panelValue(watched: Watched): Promise<number> {
  const matching = (await panelNow(watched.panel, watched.legend)).filter((sample) =>
    Object.entries(watched.series ?? {}).every(([label, value]) => sample.labels[label] === value),
  );
  // Absent, or NaN (a share of nothing), counts as 0.
  return matching.reduce((sum, sample) => sum + (Number.isNaN(sample.value) ? 0 : sample.value), 0);
}

const described = (move: Move) =>
  `${move.panel}${move.legend ? ` (${move.legend})` : ''} ${JSON.stringify(move.series ?? {})} ${move.direction}`;

/**
 * Drives traffic round after round (and `alsoEachRound`, e.g. a client over its limit) until `shows` says
 * Prometheus shows what is awaited; fails naming what it still lacks once SHOW_MS has passed.
 */
async function driveUntil(shows: () => Promise<string[]>, alsoEachRound?: () => Promise<unknown>): Promise<void> {
  const deadline = performance.now() + SHOW_MS;
  for (;;) {
    await Promise.all([trafficRound(), alsoEachRound?.()]);
    const missing = await shows();
    if (missing.length === 0) return;
    if (performance.now() > deadline) throw new Error(`Prometheus did not come to show, within ${SHOW_MS} ms: ${missing.join('; ')}`);
    await pause(ROUND_PAUSE_MS);
  }
}

/** Switches a fault on and drives traffic until every move has happened, and every named alert is pending or firing. */
async function fault(switchOn: () => unknown, moves: Move[], alerts: string[] = [], alsoEachRound?: () => Promise<unknown>): Promise<void> {
  const before = await Promise.all(moves.map(panelValue));
  await switchOn();
  await driveUntil(async () => {
    const now = await Promise.all(moves.map(panelValue));
    const unmoved = moves.filter((move, i) => (move.direction === 'up' ? now[i]! <= before[i]! : now[i]! >= before[i]!)).map(described);
    const quiet = [];
    for (const alert of alerts) if ((await prometheus.query(`ALERTS{alertname="${alert}"}`)).length === 0) quiet.push(`alert ${alert}`);
    return [...unmoved, ...quiet];
  }, alsoEachRound);
}

/** An upstream fault: switched on until every move has happened, then off until every instance's circuit is closed again. */
async function upstreamFault(switchOn: () => unknown, moves: Move[], alerts: string[] = []): Promise<void> {
  await fault(switchOn, moves, alerts);
  lookup.knobs.clearFaults();
  await driveUntil(async () => {
    const closed = await panelValue({ panel: 'Instances by circuit state', series: { state: 'closed' } });
    return closed === gateways.length ? [] : [`every circuit closed again (${closed})`];
  });
}

/** Drives traffic until the panel's query gives `count` series, each with value `value` (every instance in that state). */
function untilEvery(panel: string, value: number, what: string): Promise<void> {
  return driveUntil(async () => {
    const samples = await panelNow(panel);
    return samples.length === gateways.length && samples.every((sample) => sample.value === value)
      ? []
      : [`${what}: ${JSON.stringify(samples)}`];
  });
}

describe('the dashboard on a fleet of three gateways scraped by Prometheus', () => {
  it(
    'sees every instance sharing Redis, and the response cache answering',
    async () => {
      await untilEvery('Redis sharing by instance', 1, 'every instance sharing Redis');
      await driveUntil(async () =>
        (await panelValue({ panel: 'Cache hit shares', legend: 'response cache' })) > 0 ? [] : ['response cache hits'],
      );
    },
    SHOW_MS * 2,
  );

  it(
    'moves the upstream panels while the lookup service answers 503, and back once it recovers',
    async () => {
      await upstreamFault(
        () => lookup.knobs.failSearch({ status: 503 }, Number.POSITIVE_INFINITY),
        [
          { panel: 'Upstream error rate', series: { endpoint: '/v1/company/search' }, direction: 'up' },
          { panel: 'Upstream calls by status and outcome', series: { status_class: '5xx' }, direction: 'up' },
          { panel: 'Errors by code', legend: '{{code}} (in answers)', series: { code: 'UPSTREAM_UNAVAILABLE' }, direction: 'up' },
          { panel: 'Requests failed by the gateway or the upstream', direction: 'up' },
          { panel: 'Instances by circuit state', series: { state: 'closed' }, direction: 'down' },
          { panel: 'Calls held back', series: { reason: 'circuit_open' }, direction: 'up' },
          { panel: 'Retries, calls in flight and waiting', legend: 'retries per second', direction: 'up' },
        ],
        ['GatewayUpstreamCircuitOpen'],
      );
    },
    SHOW_MS * 3,
  );

  it(
    'moves them while the lookup service answers 429 with Retry-After, the fleet holding calls back',
    async () => {
      await upstreamFault(
        () => lookup.knobs.failSearch({ status: 429, headers: { 'retry-after': '1' } }, Number.POSITIVE_INFINITY),
        [
          { panel: 'Calls held back', series: { reason: 'rate_limited' }, direction: 'up' },
          { panel: 'Upstream calls by status and outcome', series: { status_class: '4xx' }, direction: 'up' },
          { panel: 'Errors by code', legend: '{{code}} (in answers)', series: { code: 'UPSTREAM_RATE_LIMITED' }, direction: 'up' },
        ],
      );
    },
    SHOW_MS * 3,
  );

  it(
    'shows every instance going on alone while Redis is down, then sharing again, and counts the outages and returns',
    async () => {
      const counted = async (legend: string) => panelValue({ panel: 'Redis outages and returns', legend });
      const before = { outages: await counted('outages'), returns: await counted('returns') };
      await redis.kill();
      await untilEvery('Redis sharing by instance', 0, 'every instance alone');
      await driveUntil(async () => {
        const pending = await prometheus.query('ALERTS{alertname="GatewayRedisSharingOff"}');
        return pending.length === gateways.length ? [] : [`GatewayRedisSharingOff pending for every instance (${pending.length})`];
      });
      await redis.restart();
      await untilEvery('Redis sharing by instance', 1, 'every instance sharing again');
      await driveUntil(async () => {
        const now = { outages: await counted('outages'), returns: await counted('returns') };
        return now.outages - before.outages === gateways.length && now.returns - before.returns === gateways.length
          ? []
          : [`an outage and a return per instance (${JSON.stringify({ before, now })})`];
      });
    },
    SHOW_MS * 5,
  );

  it(
    'moves the rate-limit panels while a key and an anonymous client go over their limit',
    async () => {
      const overTheLimit = () =>
        Promise.all([
          ...Array.from({ length: BURST }, () => post(gateways[0]!, search('limited'), 'batch')),
          ...Array.from({ length: BURST }, () => post(gateways[1]!, search('limited'))),
        ]);
      await fault(
        () => undefined,
        [
          { panel: 'Requests by outcome', series: { outcome: 'refused' }, direction: 'up' },
          { panel: 'Errors by code', legend: '{{code}} (refused)', series: { code: 'RATE_LIMITED' }, direction: 'up' },
          { panel: 'Rate-limit refusals by client kind', series: { client_kind: 'api-key' }, direction: 'up' },
          { panel: 'Rate-limit refusals by client kind', series: { client_kind: 'anonymous' }, direction: 'up' },
          { panel: 'Rate-limit refusals by API key', series: { api_key: 'batch' }, direction: 'up' },
          { panel: 'Share of requests rate limited', direction: 'up' },
        ],
        [],
        overTheLimit,
      );
    },
    SHOW_MS * 2,
  );

  it("gets series from every panel's every query", async () => {
    const empty: string[] = [];
    for (const query of queries) {
      const samples = await prometheus.query(substituted(query.expr, dashboard, RANGES));
      if (samples.length === 0) empty.push(`${query.row} / ${query.panel} / ${query.legend}`);
    }
    expect(empty).toEqual([]);
    expect(queries.length).toBeGreaterThan(40);
  });

  it("evaluates every alert and recording rule on the fleet's series without an error", async () => {
    const rules = await prometheus.rules();
    expect(rules.length).toBeGreaterThan(20);
    expect(rules.filter((rule) => rule.health !== 'ok').map((rule) => `${rule.name}: ${rule.health} ${rule.lastError ?? ''}`)).toEqual([]);
  });
});
