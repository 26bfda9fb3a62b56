/**
 * Where a cold search's memory goes: what the garbage collector has to deal
 * with per request. Starts the built gateway (dist/, as `npm start` runs it)
 * and the embedded lookup service in this process, sends `--warmup` distinct
 * searches (the benchmark's sequence and full card query, one in flight),
 * then samples allocations (V8's sampling heap profiler through the
 * inspector) over `--requests` more, twice:
 *
 * - every allocation, collected or not: bytes allocated per request, by the
 *   function that allocated them and by the functions below which they were
 *   allocated (inclusive);
 * - what is still held at the end, after a full GC: what a cold request
 *   leaves behind (cache entries and their bookkeeping).
 *
 *   npm run build && npx tsx --expose-gc scripts/measure-cold-allocations.ts [--warmup 2000] [--requests 2000] [--top 30]
 *
 * Both processes share the heap: the lookup service's allocations are
 * listed under src/lookup-service/ and left out of the totals. Figures go to
 * stdout; nothing is asserted.
 */
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { startLookupService } from '../src/lookup-service/index.js';
import { SEARCH_COMPANIES } from '../test/bench/operations.js';
import { QuerySource } from '../test/bench/queries.js';

const { values } = parseArgs({
  options: {
    warmup: { type: 'string', default: '2000' },
    requests: { type: 'string', default: '2000' },
    top: { type: 'string', default: '30' },
  },
});
const [warmup, requests, top] = [values.warmup, values.requests, values.top].map(Number) as [number, number, number];
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('Run with --expose-gc (npx tsx --expose-gc ...)');

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const lookup = await startLookupService();
// The gateway's settings, read from the environment as in production.
Object.assign(process.env, {
  NODE_ENV: 'production',
  ALLOW_ANONYMOUS: 'true',
  LOG_LEVEL: 'warn',
  PORT: '0',
  UPSTREAM_URL: lookup.url,
  UPSTREAM_CLIENT_ID: lookup.credentials.clientId,
  UPSTREAM_CLIENT_SECRET: lookup.credentials.clientSecret,
  RATE_LIMIT_PER_MINUTE: '6000000',
  RATE_LIMIT_BURST: '1000000',
  UPSTREAM_MAX_CALLS_PER_MINUTE: '6000000',
});
const dist = new URL('../dist/', import.meta.url).href;
const [{ readConfig }, { createLogger }, { startGateway }, { optionsOf }] = await Promise.all([
  import(`${dist}gateway/config/gateway-config.js`),
  import(`${dist}gateway/logger.js`),
  import(`${dist}gateway/server.js`),
  import(`${dist}gateway/options-from-settings.js`),
]);
const options = optionsOf(readConfig());
const gateway = await startGateway({ ...options.gateway, target: options.upstreamTarget, logger: createLogger('warn') });

const searches = new QuerySource();
searches.prepare(warmup + 2 * requests);
let sent = 0;
async function search(): Promise<void> {
  const { statusCode, body } = await request(gateway.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: SEARCH_COMPANIES.query, variables: { ...searches.at(sent++), pageSize: 50 } }),
  });
  await body.text();
  if (statusCode !== 200) throw new Error(`A search was answered ${statusCode}`);
}

const session = new Session();
session.connect();
/** Samples over `requests` searches; `collected`: every allocation, or only what is held at the end (after a full GC). */
async function sampled(collected: boolean): Promise<ProfileNode> {
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: collected,
    includeObjectsCollectedByMinorGC: collected,
  } as never);
  for (let i = 0; i < requests; i++) await search();
  if (!collected) collect!();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
  return profile.head;
}

function report(title: string, head: ProfileNode): void {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let gateway = 0;
  let lookupService = 0;
  const walk = (node: ProfileNode, above: Set<string>): number => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(dist|src|node_modules)\//, '$1/')}:${lineNumber + 1}`;
    if (url.includes('/lookup-service/')) lookupService += node.selfSize;
    else gateway += node.selfSize;
    self.set(name, (self.get(name) ?? 0) + node.selfSize);
    const below = new Set(above).add(name);
    const sum = node.children.reduce((total, child) => total + walk(child, below), node.selfSize);
    if (!above.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + sum);
    return sum;
  };
  walk(head, new Set());
  const perRequest = (bytes: number) => `${(bytes / requests / 1024).toFixed(1)} KiB`;
  const lines = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, bytes]) => `  ${perRequest(bytes).padStart(10)}  ${name}`)
      .join('\n');
  console.log(`## ${title}\n\n${perRequest(gateway)} a request (the lookup service's ${perRequest(lookupService)} left out)\n`);
  console.log(`By the function that allocated:\n${lines(self)}\n\nInclusive:\n${lines(inclusive)}\n`);
}

try {
  for (let i = 0; i < warmup; i++) await search();
  report('Allocated, collected or not', await sampled(true));
  report('Still held after a full GC', await sampled(false));
} finally {
  session.disconnect();
  await gateway.close();
  await lookup.close();
}
