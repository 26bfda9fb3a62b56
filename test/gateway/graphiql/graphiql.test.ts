import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/gateway/access/api-keys.js';
import { readTrustedDocuments } from '../../../src/gateway/graphql/trusted-documents.js';
import { json, send, type HttpAnswer } from '../../support/http.js';
import { startStack, type Stack } from '../../support/stack.js';
import { refusalBody } from '../../support/refusal.js';

const MANIFEST = fileURLToPath(new URL('../../generated/persisted-documents.json', import.meta.url));
/** What Chromium sends. */
const BROWSER_CODINGS = 'gzip, deflate, br, zstd';
const PAGE = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** The body as the client reads it once its Content-Encoding is undone. */
function decoded(answer: HttpAnswer): Buffer {
  const coding = answer.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(answer.body);
  if (coding === 'gzip') return gunzipSync(answer.body);
  expect(coding).toBeUndefined();
  return answer.body;
}

/** The URLs of GraphiQL's files the page names. */
function filesNamedBy(page: string): string[] {
  return [...new Set(page.match(/\/graphiql\/[\w.]+/g) ?? [])];
}

describe('GraphiQL, where arbitrary operations run', () => {
  const KEY = 'web-key-0123456789abcdef0123456789abcdef';
  let stack: Stack;
  let page: string;
  beforeAll(async () => {
    // Client access required: GraphiQL's page and files are public all the same. No rate limit: the tests ask for each file many times.
    stack = await startStack({
      gateway: { apiKeys: [{ id: 'web', sha256: hashApiKey(KEY) }], allowAnonymous: false, rateLimitPerMinute: 0 },
    });
    page = decoded(await stack.get('/graphql', PAGE)).toString();
  });
  afterAll(() => stack.close());

  it('serves a small page that names its files by content hash', () => {
    expect(page.length).toBeLessThan(3_000);
    expect(filesNamedBy(page)).toEqual([
      expect.stringMatching(/^\/graphiql\/favicon\.[0-9a-f]{16}\.ico$/),
      expect.stringMatching(/^\/graphiql\/graphiql\.[0-9a-f]{16}\.css$/),
      expect.stringMatching(/^\/graphiql\/editor\.worker\.[0-9a-f]{16}\.js$/),
      expect.stringMatching(/^\/graphiql\/json\.worker\.[0-9a-f]{16}\.js$/),
      expect.stringMatching(/^\/graphiql\/graphql\.worker\.[0-9a-f]{16}\.js$/),
      expect.stringMatching(/^\/graphiql\/graphiql\.[0-9a-f]{16}\.js$/),
    ]);
  });

  it.for([
    [BROWSER_CODINGS, 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0.8, br;q=0.9', 'br'],
    ['*', 'br'],
    ['deflate', undefined],
    ['br;q=0, gzip;q=0', undefined],
    [undefined, undefined],
  ] as const)('answers the page and its files to Accept-Encoding %j in %s, the same bytes once decoded', async ([accepted, coding]) => {
    const codings: Record<string, string> = accepted === undefined ? {} : { 'accept-encoding': accepted };
    const identity = await stack.get('/graphql', PAGE);
    const answer = await stack.get('/graphql', { ...PAGE, ...codings });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(coding);
    expect(decoded(answer)).toEqual(identity.body);
    for (const file of filesNamedBy(page)) {
      const plain = await stack.get(file);
      const coded = await stack.get(file, codings);
      expect(coded.headers['content-encoding'], file).toBe(coding);
      expect(decoded(coded).equals(plain.body), file).toBe(true);
    }
  });

  it('moves under 2 MB for the page and all its files with Accept-Encoding: br, gzip', async () => {
    const answers = await Promise.all(
      ['/graphql', ...filesNamedBy(page)].map((path) => stack.get(path, { ...PAGE, 'accept-encoding': 'br, gzip' })),
    );
    expect(answers.map((answer) => answer.headers['content-encoding'])).toEqual(answers.map(() => 'br'));
    const bytes = answers.reduce((sum, answer) => sum + answer.body.length, 0);
    expect(bytes).toBeLessThan(2_000_000);
    const uncompressed = answers.reduce((sum, answer) => sum + decoded(answer).length, 0);
    expect(uncompressed).toBeGreaterThan(8_000_000);
  });

  it('lets the browser keep its files for ever, and revalidate the page: 304 on a matching If-None-Match', async () => {
    for (const path of filesNamedBy(page)) {
      const first = await stack.get(path, { 'accept-encoding': BROWSER_CODINGS });
      expect(first.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
      expect(first.headers.vary, path).toBe('Accept-Encoding');
      const again = await stack.get(path, { 'accept-encoding': BROWSER_CODINGS, 'if-none-match': `W/"x", ${first.headers.etag}` });
      expect(again.status, path).toBe(304);
      expect(again.body.length, path).toBe(0);
      // Another coding is another representation, with an ETag of its own.
      expect((await stack.get(path, { 'accept-encoding': 'gzip', 'if-none-match': String(first.headers.etag) })).status, path).toBe(200);
    }
    const first = await stack.get('/graphql', { ...PAGE, 'accept-encoding': BROWSER_CODINGS });
    expect(first.headers['cache-control']).toBe('no-cache');
    expect(first.headers.vary).toBe('Accept, Accept-Encoding');
    const again = await stack.get('/graphql', { ...PAGE, 'accept-encoding': BROWSER_CODINGS, 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(first.headers.etag);
  });

  it('answers HEAD with the headers alone, other methods 405, and an unknown file 404', async () => {
    const [file] = filesNamedBy(page);
    const head = await send(stack.gateway.url, { method: 'HEAD', path: file, headers: { 'accept-encoding': 'br' } });
    const get = await stack.get(file!, { 'accept-encoding': 'br' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(get.body.length));

    const post = await send(stack.gateway.url, { method: 'POST', path: file, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(json(post)).toEqual({
      errors: [
        { message: 'POST is not allowed here; use GET or HEAD', extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' } },
      ],
    });

    const unknown = await stack.get('/graphiql/graphiql.0000000000000000.js');
    expect(unknown.status).toBe(404);
    expect(json(unknown)).toMatchObject({ errors: [{ extensions: { requestId: expect.any(String), code: 'NOT_FOUND' } }] });
  });
});

describe('GraphiQL, where only trusted documents run', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { trustedDocuments: readTrustedDocuments(MANIFEST), allowArbitraryOperations: false } });
  });
  afterAll(() => stack.close());

  it('is not served: a browser gets 404 GRAPHIQL_UNAVAILABLE saying why, and none of its files', async () => {
    const answer = await stack.get('/graphql', PAGE);
    expect(answer.status).toBe(404);
    expect(json(answer)).toEqual(
      refusalBody(
        'GRAPHIQL_UNAVAILABLE',
        'GraphiQL is off here: this gateway runs only trusted documents (ALLOW_ARBITRARY_OPERATIONS=false), and GraphiQL sends whole queries; send the documentId of a trusted document from a client built with the manifest',
      ),
    );
    const open = await startStack();
    try {
      const [file] = filesNamedBy(decoded(await open.get('/graphql', PAGE)).toString());
      expect((await stack.get(file!)).status).toBe(404);
    } finally {
      await open.close();
    }
  });
});
