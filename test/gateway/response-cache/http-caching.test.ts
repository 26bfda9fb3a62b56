import { type DocumentNode, print } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/gateway/access/api-keys.js';
import { HttpCaching, MAX_TAG_HEADER_BYTES } from '../../../src/gateway/response-cache/http-caching.js';
import { companyTag, searchTag } from '../../../src/upstream/cache-tags.js';
import { CompanyByNumberDocument, DashboardSearchDocument } from '../../generated/graphql.js';
import { manualClock, type ManualClock } from '../../support/clock.js';
import type { HttpAnswer } from '../../support/http.js';
import { startStack, type Stack, type StackOptions } from '../../support/stack.js';

const TTL_MS = 300_000;
const SWR_MS = 60_000;
const SIE_MS = 3_600_000;
const KEY = 'k'.repeat(40);
const SEARCH = { q: 'Zebra Quantum', jurisdiction: 'GB' };

let stack: Stack | undefined;
let clock: ManualClock;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function start(gateway: StackOptions['gateway'] = {}): Promise<Stack> {
  clock = manualClock();
  stack = await startStack({
    clock,
    gateway: { cacheTtlMs: TTL_MS, cacheStaleWhileRevalidateMs: SWR_MS, cacheStaleIfErrorMs: SIE_MS, ...gateway },
  });
  return stack;
}

/** The dashboard search (or `document`) sent by GET, as Apollo Client's useGETForQueries sends it. */
function getTarget(variables: object = SEARCH, document: DocumentNode = DashboardSearchDocument): string {
  return `/graphql?query=${encodeURIComponent(print(document))}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
}

/** How many operations the gateway has run so far: Yoga logs this line for each one. */
function operationsRun(stack: Stack): number {
  return stack.logs.filter((line) => line.includes('"Processing GraphQL Parameters"')).length;
}

function tagsOf(answer: HttpAnswer, header = 'cache-tag', separator = ','): string[] {
  return String(answer.headers[header]).split(separator);
}

describe('HTTP caching of GET answers', () => {
  it('says how long a search stays fresh, and stale, as the gateway itself serves it; with its ETag, Vary and tags', async () => {
    const stack = await start();
    const answer = await stack.get(getTarget(), { accept: 'application/graphql-response+json' });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=60, stale-if-error=3600');
    expect(answer.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(answer.headers.vary).toBe('Accept');
    const { nodes } = JSON.parse(answer.text).data.searchCompanies;
    expect(nodes.map((node: { name: string }) => node.name)).toEqual(['Zebra Quantum Fisheries Ltd']);
    expect(tagsOf(answer).sort()).toEqual(
      ['csg:all', 'csg:j:GB', searchTag({ q: 'Zebra Quantum', jurisdiction: 'GB' }), companyTag('GB', '09876543')].sort(),
    );

    // 100.5 s later the same answer is served from the response cache, with 199 s of freshness left.
    clock.advance(100_500);
    const later = await stack.get(getTarget(), { accept: 'application/graphql-response+json' });
    expect(later.text).toBe(answer.text);
    expect(later.headers.etag).toBe(answer.headers.etag);
    expect(later.headers['cache-control']).toBe('public, max-age=199, stale-while-revalidate=60, stale-if-error=3600');

    // Past the TTL the gateway serves the window stale while it refreshes it: no freshness left, the stale windows shrink.
    clock.advance(TTL_MS - 100_500 + 20_000);
    const stale = await stack.get(getTarget(), { accept: 'application/graphql-response+json' });
    expect(stale.headers['cache-control']).toBe('public, max-age=0, stale-while-revalidate=40, stale-if-error=3580');
    // The dashboard selects neither `stale` nor `fetchedAt`: the same bytes, the same ETag.
    expect([stale.text, stale.headers.etag]).toEqual([answer.text, answer.headers.etag]);
  });

  it('answers If-None-Match naming the ETag with 304 and no body, without running the operation or calling the upstream', async () => {
    const stack = await start();
    const first = await stack.get(getTarget());
    const [runs, searches] = [operationsRun(stack), stack.lookup.counters.searchRequests];
    const revalidated = await stack.get(getTarget(), { 'if-none-match': `"other", W/${first.headers.etag}` });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toHaveLength(0);
    expect(revalidated.headers).toMatchObject({
      etag: first.headers.etag,
      'cache-control': first.headers['cache-control'],
      vary: 'Accept',
      'cache-tag': first.headers['cache-tag'],
    });
    expect((await stack.get(getTarget(), { 'if-none-match': '*' })).status).toBe(304);
    expect([operationsRun(stack), stack.lookup.counters.searchRequests]).toEqual([runs, searches]);

    // Another ETag gets the whole answer.
    const changed = await stack.get(getTarget(), { 'if-none-match': '"other"' });
    expect([changed.status, changed.text]).toEqual([200, first.text]);
  });

  it('answers 304 after running the operation when the response cache does not hold the answer', async () => {
    const stack = await start({ responseCache: false });
    const first = await stack.get(getTarget());
    const revalidated = await stack.get(getTarget(), { 'if-none-match': String(first.headers.etag) });
    expect([revalidated.status, revalidated.text]).toEqual([304, '']);
    expect(operationsRun(stack)).toBe(2);
  });

  it('keeps the ETag of each content type apart: the bytes are the same, the representations are not', async () => {
    const stack = await start();
    const json = await stack.get(getTarget(), { accept: 'application/json' });
    const graphqlJson = await stack.get(getTarget(), { accept: 'application/graphql-response+json' });
    expect(json.text).toBe(graphqlJson.text);
    expect(json.headers.etag).not.toBe(graphqlJson.headers.etag);
    const crossed = await stack.get(getTarget(), { accept: 'application/json', 'if-none-match': String(graphqlJson.headers.etag) });
    expect(crossed.status).toBe(200);
  });

  it("tags a company lookup with the company's number", async () => {
    const stack = await start();
    const found = await stack.get(getTarget({ jurisdiction: 'GB', companyNumber: ' 09876543 ' }, CompanyByNumberDocument));
    expect(JSON.parse(found.text).data.company.name).toBe('Zebra Quantum Fisheries Ltd');
    expect(tagsOf(found)).toContain(companyTag('GB', '09876543'));
    // A number nobody has: the answer is null, and tagged with the number, so that a company corrected into existence drops it.
    const missing = await stack.get(getTarget({ jurisdiction: 'GB', companyNumber: 'zz999999' }, CompanyByNumberDocument));
    expect(JSON.parse(missing.text).data.company).toBeNull();
    expect(tagsOf(missing)).toContain('csg:c:GB:ZZ999999');
  });

  it('puts the tags in Surrogate-Key, space-separated, or in no header, as CDN_TAG_HEADER says', async () => {
    const fastly = await start({ cdnTagHeader: 'Surrogate-Key' });
    const tagged = await fastly.get(getTarget());
    expect(tagged.headers['cache-tag']).toBeUndefined();
    expect(tagsOf(tagged, 'surrogate-key', ' ')).toContain(companyTag('GB', '09876543'));
    await fastly.close();
    const plain = await start({ cdnTagHeader: 'none' });
    const untagged = await plain.get(getTarget());
    expect([untagged.headers['cache-tag'], untagged.headers['surrogate-key']]).toEqual([undefined, undefined]);
    expect(untagged.headers['cache-control']).toMatch(/^public, /);
  });

  it('is private, without tags, where access control decides who gets the answer', async () => {
    const stack = await start({ apiKeys: [{ id: 'app', sha256: hashApiKey(KEY) }], allowAnonymous: false });
    const answer = await stack.get(getTarget(), { 'x-api-key': KEY });
    expect(answer.headers['cache-control']).toBe('private, max-age=300, stale-while-revalidate=60, stale-if-error=3600');
    expect(answer.headers['cache-tag']).toBeUndefined();
    expect(answer.headers.etag).toBeDefined();
  });

  it('turns private, without tags, for the next answer once a reload turns anonymous access off', async () => {
    const apiKeys = [{ id: 'app', sha256: hashApiKey(KEY) }];
    const stack = await start({ apiKeys, allowAnonymous: true });
    const before = await stack.get(getTarget(), { 'x-api-key': KEY });
    expect(before.headers['cache-control']).toMatch(/^public, /);
    stack.gateway.reload({ apiKeys, jwt: undefined, allowAnonymous: false, trustedDocuments: undefined });
    expect((await stack.get(getTarget())).status).toBe(401);
    const after = await stack.get(getTarget(), { 'x-api-key': KEY });
    expect(after.text).toBe(before.text);
    expect(after.headers['cache-control']).toBe('private, max-age=300, stale-while-revalidate=60, stale-if-error=3600');
    expect(after.headers['cache-tag']).toBeUndefined();
  });

  it("tags an answer that read no upstream data with everything's tag, so that a purge of everything drops it", async () => {
    const stack = await start();
    const answer = await stack.get(`/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(JSON.parse(answer.text)).toEqual({ data: { __typename: 'Query' } });
    expect(answer.headers['cache-control']).toMatch(/^public, /);
    expect(tagsOf(answer)).toEqual(['csg:all']);
  });

  it('adds Accept to the Vary that CORS sets for an allow-list of origins', async () => {
    const stack = await start({ corsAllowedOrigins: ['https://app.example.com'] });
    const answer = await stack.get(getTarget(), { origin: 'https://app.example.com', 'sec-fetch-site': 'cross-site' });
    expect(answer.status).toBe(200);
    expect(answer.headers.vary).toBe('Origin, Accept');
  });

  it.each([
    ['a POST', (stack: Stack) => stack.post({ query: print(DashboardSearchDocument), variables: SEARCH })],
    ['an answer with an error', (stack: Stack) => stack.get(getTarget({ q: 'x', jurisdiction: 'UK' }))],
    ['a refusal', (stack: Stack) => stack.get('/graphql?query=%7B', { accept: 'application/graphql-response+json' })],
  ])('is no-store for %s', async (_, send) => {
    const stack = await start();
    for (let i = 0; i < 2; i++) {
      const answer = await send(stack);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers.etag).toBeUndefined();
      expect(answer.headers['cache-tag']).toBeUndefined();
    }
  });

  it('is no-store for stale data served because the upstream failed, which carries a warning', async () => {
    const stack = await start({ upstreamRetries: 0 });
    await stack.get(getTarget());
    clock.advance(TTL_MS + SWR_MS + 1);
    stack.lookup.knobs.failSearch({ status: 503 }, Number.POSITIVE_INFINITY);
    const stale = await stack.get(getTarget());
    expect(JSON.parse(stale.text).extensions.warnings[0].code).toBe('STALE_DATA');
    expect(stale.headers['cache-control']).toBe('no-store');
  });
});

describe('HttpCaching', () => {
  const caching = (tagHeader: 'Cache-Tag' | undefined, clock = manualClock(0)) =>
    new HttpCaching({ scope: () => 'public', maxTtlMs: 60_000, staleWhileRevalidateMs: 0, staleIfErrorMs: 0, tagHeader, clock });
  const response = { getHeader: () => undefined } as never;

  it(`makes an answer private, without tags, when they pass ${MAX_TAG_HEADER_BYTES} bytes: no CDN could be told to drop it`, () => {
    const tags = (count: number) => Array.from({ length: count }, (_, i) => companyTag('GB', String(10_000_000 + i))).join(' ');
    const fits = caching('Cache-Tag').headers({ freshUntil: 30_000, etag: '"e"', tags: tags(200) }, response);
    expect(String(fits['cache-tag']).length).toBeLessThanOrEqual(MAX_TAG_HEADER_BYTES);
    expect(fits['cache-control']).toBe('public, max-age=30, stale-while-revalidate=0, stale-if-error=0');
    const over = caching('Cache-Tag').headers({ freshUntil: 30_000, etag: '"e"', tags: tags(250) }, response);
    expect(over['cache-tag']).toBeUndefined();
    expect(over['cache-control']).toBe('private, max-age=30, stale-while-revalidate=0, stale-if-error=0');
  });

  it('never says fresh for longer than the data is: whole seconds rounded down, at most the TTL', () => {
    const clock = manualClock(0);
    const headers = caching(undefined, clock);
    expect(headers.cacheControl(999, 'public')).toBe('public, max-age=0, stale-while-revalidate=0, stale-if-error=0');
    expect(headers.cacheControl(Number.POSITIVE_INFINITY, 'public')).toMatch(/^public, max-age=60,/);
    clock.advance(5_000);
    expect(headers.cacheControl(4_000, 'private')).toBe('private, max-age=0, stale-while-revalidate=0, stale-if-error=0');
  });
});
