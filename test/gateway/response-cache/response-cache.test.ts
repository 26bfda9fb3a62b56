import type { IncomingMessage } from 'node:http';
import { print } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/gateway/access/api-keys.js';
import {
  MAX_ENTRY_SHARE,
  MAX_KEY_LENGTH,
  ResponseCache,
  type SerializedAnswer,
} from '../../../src/gateway/response-cache/response-cache.js';
import { CACHE_ENTRY_BYTES } from '../../../src/upstream/cache-entry.js';
import { DashboardSearchDocument, SearchCompaniesDocument } from '../../generated/graphql.js';
import { matchCount } from '../../support/data-set.js';
import { manualClock, type ManualClock } from '../../support/clock.js';
import { startStack, type Stack, type StackOptions } from '../../support/stack.js';

const KEY = 'k'.repeat(40);
const TTL_MS = 300;
const SEARCH = { query: print(SearchCompaniesDocument), variables: { q: 'holdings', jurisdiction: 'GB', pageSize: 50 } };

/** An answer as the responder keeps it, without tags or ETag. */
function answerOf(body: string | Buffer, freshUntil: number): SerializedAnswer {
  return {
    contentType: 'application/json',
    body: typeof body === 'string' ? Buffer.from(body) : body,
    tags: '',
    freshUntil,
    etag: undefined,
  };
}

let stack: Stack | undefined;
/** The gateway's clock: answers expire when the test moves it on, never while a slow machine runs a test. */
let clock: ManualClock;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function start(gateway: StackOptions['gateway'] = {}) {
  clock = manualClock();
  stack = await startStack({ clock, gateway: { cacheTtlMs: TTL_MS, cacheStaleWhileRevalidateMs: 0, ...gateway } });
  return stack;
}

/** How many operations the gateway has run so far: Yoga logs this line for each one. */
function operationsRun(stack: Stack): number {
  return stack.logs.filter((line) => line.includes('"Processing GraphQL Parameters"')).length;
}

describe('response cache', () => {
  it('answers a repeated request with the very same bytes, without running the operation or calling the upstream', async () => {
    const stack = await start();
    const first = await stack.post(SEARCH);
    expect(first.status).toBe(200);
    const runs = operationsRun(stack);
    const searches = stack.lookup.counters.searchRequests;

    const again = await Promise.all(Array.from({ length: 5 }, () => stack.post(SEARCH)));
    expect(again.map((answer) => answer.text)).toEqual(Array.from({ length: 5 }, () => first.text));
    expect(again.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(operationsRun(stack)).toBe(runs);
    expect(stack.lookup.counters.searchRequests).toBe(searches);
    expect(stack.gateway.cacheBytes).toBeGreaterThan(first.text.length);
  });

  it('keeps an answer only while the data it was built from is fresh', async () => {
    const stack = await start();
    const first = JSON.parse((await stack.post(SEARCH)).text);
    clock.advance(TTL_MS + 50);
    const later = JSON.parse((await stack.post(SEARCH)).text);
    expect(later.data.searchCompanies.fetchedAt > first.data.searchCompanies.fetchedAt).toBe(true);
    expect(stack.lookup.counters.searchesAnswered).toBe(2);
  });

  it('is byte-identical to a fresh execution over the same data', async () => {
    const stack = await start({ cacheTtlMs: 60_000 });
    const cached = await stack.post(SEARCH);
    await stack.post(SEARCH);
    // The same operation spelt with an extra space is another request: it runs over the cached window.
    const fresh = await stack.post({ ...SEARCH, query: `${SEARCH.query} ` });
    const runs = operationsRun(stack);
    expect(fresh.text).toBe(cached.text);
    expect(runs).toBe(2);
  });

  it.each([
    [
      'GET',
      (stack: Stack, accept: string) =>
        stack.get(`/graphql?query=${encodeURIComponent(SEARCH.query)}&variables=${encodeURIComponent(JSON.stringify(SEARCH.variables))}`, {
          accept,
        }),
    ],
    ['POST', (stack: Stack, accept: string) => stack.post(SEARCH, { accept })],
  ])('keeps the answers to a %s with different Accept headers apart, each with its own content type', async (_, send) => {
    const stack = await start();
    const answers = [];
    for (const accept of [
      'application/graphql-response+json',
      'application/json',
      'application/graphql-response+json',
      'application/json',
    ]) {
      answers.push(await send(stack, accept));
    }
    expect(answers.map((answer) => answer.headers['content-type'])).toEqual([
      'application/graphql-response+json; charset=utf-8',
      'application/json; charset=utf-8',
      'application/graphql-response+json; charset=utf-8',
      'application/json; charset=utf-8',
    ]);
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect(operationsRun(stack)).toBe(2);
  });

  it('still checks access and rate limits on every hit', async () => {
    const stack = await start({
      cacheTtlMs: 60_000,
      apiKeys: [{ id: 'dashboard', sha256: hashApiKey(KEY) }],
      allowAnonymous: false,
      rateLimitPerMinute: 60,
      rateLimitBurst: 3,
    });
    const allowed = await stack.post(SEARCH, { 'x-api-key': KEY });
    expect(allowed.status).toBe(200);
    expect((await stack.post(SEARCH)).status).toBe(401);
    expect((await stack.post(SEARCH, { 'x-api-key': `${KEY.slice(0, -1)}x` })).status).toBe(401);
    expect((await stack.post(SEARCH, { 'x-api-key': KEY })).text).toBe(allowed.text);
    expect((await stack.post(SEARCH, { 'x-api-key': KEY })).text).toBe(allowed.text);
    const limited = await stack.post(SEARCH, { 'x-api-key': KEY });
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.text).errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('never keeps an answer with errors, warnings or partial errors', async () => {
    const stack = await start({ cacheTtlMs: 60_000 });
    const badArgument = { query: print(DashboardSearchDocument), variables: { q: 'holdings', jurisdiction: 'XX' } };
    await stack.post(badArgument);
    await stack.post(badArgument);
    expect(operationsRun(stack)).toBe(2);

    stack.lookup.knobs.mapResults = (results) => results.map((result) => ({ ...result, incorporatedDate: 'soon' }));
    const withPartialErrors = { query: print(SearchCompaniesDocument), variables: { q: 'ferncastle', jurisdiction: 'GB' } };
    const partial = await stack.post(withPartialErrors);
    expect(JSON.parse(partial.text).errors[0].extensions.code).toBe('UPSTREAM_INVALID_FIELD');
    await stack.post(withPartialErrors);
    expect(operationsRun(stack)).toBe(4);
  });

  it('never keeps a stale answer served because the upstream failed', async () => {
    const stack = await start({ upstreamRetries: 0 });
    await stack.post(SEARCH);
    clock.advance(TTL_MS + 50);
    stack.lookup.knobs.failSearch({ status: 503 }, Number.POSITIVE_INFINITY);
    const runs = operationsRun(stack);
    const stale = JSON.parse((await stack.post(SEARCH)).text);
    expect(stale.extensions.warnings[0].code).toBe('STALE_DATA');
    await stack.post(SEARCH);
    expect(operationsRun(stack)).toBe(runs + 2);
  });

  it('keeps the operations of a batch apart and never keeps a batch', async () => {
    const stack = await start({ cacheTtlMs: 60_000, batchingLimit: 5 });
    stack.lookup.knobs.mapResults = (results) =>
      results.map((result) => (result.name.startsWith('Ferncastle') ? { ...result, incorporatedDate: 'soon' } : result));
    const batch = [
      { query: print(SearchCompaniesDocument), variables: { q: 'ferncastle', jurisdiction: 'GB' } },
      { query: print(DashboardSearchDocument), variables: { q: 'holdings', jurisdiction: 'GB' } },
    ];
    const [withErrors, clean] = JSON.parse((await stack.post(batch)).text);
    expect(withErrors.errors[0].extensions.code).toBe('UPSTREAM_INVALID_FIELD');
    expect(clean.errors).toBeUndefined();
    expect(clean.data.searchCompanies.totalCount).toBe(matchCount('holdings'));
    await stack.post(batch);
    expect(operationsRun(stack)).toBe(4);

    const cleanBatch = [batch[1], { ...batch[1], variables: { q: 'harbour', jurisdiction: 'GB' } }];
    const answers = JSON.parse((await stack.post(cleanBatch)).text) as { errors?: unknown }[];
    expect(answers.map((answer) => answer.errors)).toEqual([undefined, undefined]);
    await stack.post(cleanBatch);
    expect(operationsRun(stack)).toBe(8);
  });

  it('sends streamed answer formats as well-formed HTTP, and does not keep them', async () => {
    const stack = await start({ cacheTtlMs: 60_000 });
    for (const accept of ['multipart/mixed', 'text/event-stream', 'multipart/mixed']) {
      const { status, text } = await stack.post(SEARCH, { accept });
      expect(status).toBe(200);
      expect(text).toContain(`"totalCount":${matchCount('holdings')}`);
    }
    expect(operationsRun(stack)).toBe(3);
  });

  it('does not keep requests too long to be keys', async () => {
    const stack = await start({ cacheTtlMs: 60_000 });
    const padded = { ...SEARCH, variables: { ...SEARCH.variables, padding: 'x'.repeat(MAX_KEY_LENGTH) } };
    expect((await stack.post(padded)).status).toBe(200);
    await stack.post(padded);
    expect(operationsRun(stack)).toBe(2);
  });

  it('counts a padded Content-Type towards the longest request kept', async () => {
    const stack = await start({ cacheTtlMs: 60_000 });
    const headers = { 'content-type': `application/json; pad=${'x'.repeat(MAX_KEY_LENGTH)}` };
    expect((await stack.post(SEARCH, headers)).status).toBe(200);
    await stack.post(SEARCH, headers);
    expect(operationsRun(stack)).toBe(2);
  });

  it('keys a request by its bytes: the same bytes the same key, different bytes never, and no copy of a long body', () => {
    const cache = new ResponseCache({ maxBytes: 1_024 * 1_024, maxTtlMs: 1_000 });
    const request = { method: 'POST', url: '/graphql', headers: { accept: 'application/json' } } as IncomingMessage;
    const [acute, grave] = ['{"q":"Café"}', '{"q":"Cafè"}'].map((text) => Buffer.from(text, 'utf8'));
    expect(cache.keyOf(request, acute)).not.toBe(cache.keyOf(request, grave));
    expect(cache.keyOf(request, Buffer.from(acute!))).toBe(cache.keyOf(request, acute));
    const long = Buffer.from(JSON.stringify({ query: `{ ${'__typename '.repeat(500)}}` }));
    expect(cache.keyOf(request, long).length).toBeLessThan(long.length / 10);
  });

  it('keys a GET by its whole target, and never as the POST of the same bytes', () => {
    const cache = new ResponseCache({ maxBytes: 1_024 * 1_024, maxTtlMs: 1_000 });
    const headers = { accept: 'application/json' };
    const get = (url: string) => cache.keyOf({ method: 'GET', url, headers } as IncomingMessage, undefined);
    expect(get('/graphql?query=%7Ba%7D')).not.toBe(get('/graphql?query=%7Bb%7D'));
    expect(get('/graphql?query=%7Ba%7D')).toBe(get('/graphql?query=%7Ba%7D'));
    const long = `/graphql?query=${encodeURIComponent(`{ ${'__typename '.repeat(500)}}`)}`;
    expect(get(long).length).toBeLessThan(long.length / 10);
    const post = cache.keyOf({ method: 'POST', url: '/graphql', headers } as IncomingMessage, Buffer.from('/graphql?query=%7Ba%7D'));
    expect(post).not.toBe(get('/graphql?query=%7Ba%7D'));
  });

  it('counts exactly the bytes of the bodies, tags and ETags it holds, and one entry charge each, however long the requests', () => {
    const standing = manualClock();
    const cache = new ResponseCache({ maxBytes: 8 * 1_024 * 1_024, maxTtlMs: 60_000, clock: standing });
    const keyFor = (url: string, accept: string) =>
      cache.keyOf({ method: 'POST', url, headers: { accept } } as IncomingMessage, Buffer.from('{}'));
    const keys = [
      keyFor('/graphql', 'application/json'),
      keyFor(`/graphql?pad=${'x'.repeat(4_000)}`, `application/json, ${'x/y, '.repeat(2_000)}`),
    ];
    // A key is a digest: a long request costs its entry nothing more.
    expect(keys.map((key) => key.length)).toEqual([44, 44]);
    // Bodies of every kind the cache meets: small views of Node's shared pool, and larger buffers of their own.
    const bodies = [Buffer.from('{"data":{}}'), Buffer.alloc(70_000, 'x')];
    const tagged = { tags: 'csg:all csg:j:GB', etag: '"abc"' };
    for (const [i, key] of keys.entries()) cache.set(key, { ...answerOf(bodies[i]!, standing() + 60_000), ...tagged }, cache.purges);
    const stored = keys.map((key) => cache.get(key)!);
    const held = (answer: SerializedAnswer) => answer.body.buffer.byteLength + answer.tags.length + answer.etag!.length;
    expect(cache.bytes).toBe(stored.reduce((sum, answer) => sum + held(answer) + CACHE_ENTRY_BYTES, 0));
    expect(stored.map((answer) => answer.body.byteLength)).toEqual(bodies.map((body) => body.byteLength));
  });

  it('keeps no answer that would take more than its share of the cache, so that a few large ones cannot evict the rest', () => {
    const maxBytes = 256 * 1_024;
    const standing = manualClock();
    const cache = new ResponseCache({ maxBytes, maxTtlMs: 60_000, clock: standing });
    const answer = (bytes: number) => answerOf(Buffer.alloc(bytes, 'x'), standing() + 60_000);
    const share = maxBytes * MAX_ENTRY_SHARE;
    cache.set('small', answer(share / 2), cache.purges);
    const small = cache.bytes;
    expect(small).toBeGreaterThan(share / 2);
    expect(small).toBeLessThanOrEqual(share);
    for (let i = 0; i < 100; i++) cache.set(`large ${i}`, answer(share), cache.purges);
    expect(cache.get('large 0')).toBeUndefined();
    expect(cache.get('small')?.body.length).toBe(share / 2);
    expect(cache.bytes).toBe(small);
  });

  it('keeps a small body as bytes of its own, not as a view of a shared pool', () => {
    const standing = manualClock();
    const cache = new ResponseCache({ maxBytes: 1_024 * 1_024, maxTtlMs: 1_000, clock: standing });
    const pooled = Buffer.from('{"data":{"__typename":"Query"}}');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    cache.set('key', answerOf(pooled, standing() + 1_000), cache.purges);
    const kept = cache.get('key')!.body;
    expect(kept.equals(pooled)).toBe(true);
    expect(kept.buffer.byteLength).toBe(pooled.length);
  });

  it('can be turned off', async () => {
    const stack = await start({ responseCache: false });
    await stack.post(SEARCH);
    await stack.post(SEARCH);
    expect(operationsRun(stack)).toBe(2);
  });
});
