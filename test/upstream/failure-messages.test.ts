import { afterEach, describe, expect, it } from 'vitest';
import type { Fault } from '../../src/lookup-service/index.js';
import { DashboardSearchDocument } from '../generated/graphql.js';
import { manualClock } from '../support/clock.js';
import { freshSearch } from '../support/searches.js';
import { startStack, type Stack } from '../support/stack.js';

/** What a client message must never hold: an upstream address, path, status or library code. */
const UPSTREAM_INTERNALS = /\/v1\/|https?:|127\.0\.0\.1|localhost|UND_ERR|E[A-Z]{4,}|\(\d{3}\)|\b(?:GET|POST)\b/;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const faults: [string, 'token' | 'search', Fault][] = [
  ['a slow token endpoint', 'token', { kind: 'hang' }],
  ['a token endpoint that drops the connection', 'token', { kind: 'drop-connection' }],
  ['a token endpoint answering 503', 'token', { status: 503 }],
  ['a token endpoint answering 429', 'token', { status: 429, headers: { 'retry-after': '5' } }],
  ['a token endpoint refusing the credentials', 'token', { status: 401 }],
  ['a token endpoint answering 404', 'token', { status: 404 }],
  ['a slow search', 'search', { kind: 'hang' }],
  ['a search answering 502', 'search', { status: 502 }],
  ['a search answering 400', 'search', { status: 400, body: '{"message":"q is odd"}' }],
  ['a search answering garbage', 'search', { kind: 'malformed-json' }],
];

describe('what clients are told of an upstream failure', () => {
  it.each(faults)('names nothing of the upstream for %s, while the log has the detail once', async (_name, endpoint, fault) => {
    const clock = manualClock();
    stack = await startStack({
      clock,
      gateway: { upstreamHeadersTimeoutMs: 200, upstreamRetries: 0, upstreamBreakerFailures: 2, rateLimitPerMinute: 0 },
    });
    if (endpoint === 'search') await stack.execute(DashboardSearchDocument, freshSearch());
    stack.logs.length = 0;
    if (endpoint === 'token') stack.lookup.knobs.failToken(fault, Infinity);
    else stack.lookup.knobs.failSearch(fault, Infinity);

    // The failure itself, then what the backoff or the open circuit answers without calling.
    const messages: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { body } = await stack.execute(DashboardSearchDocument, freshSearch());
      expect(body.errors?.[0]?.extensions?.code).toMatch(/^UPSTREAM_/);
      messages.push(...(body.errors ?? []).map((error) => error.message));
    }
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).not.toMatch(UPSTREAM_INTERNALS);

    const details = stack.logs
      .map((line) => JSON.parse(line) as { level: number; detail?: string })
      .filter((entry) => entry.level === 40 && entry.detail !== undefined);
    expect(details.length).toBeGreaterThan(0);
    expect(details.length).toBeLessThanOrEqual(stack.lookup.counters.tokenRequests + stack.lookup.counters.searchRequests);
    expect(details.some((entry) => entry.detail!.includes(endpoint === 'token' ? 'POST /v1/oauth/token' : 'GET /v1/company/search'))).toBe(
      true,
    );
  });
});
