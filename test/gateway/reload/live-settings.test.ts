import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { parseApiKeys } from '../../../src/gateway/access/api-keys.js';
import type { TrustedDocuments } from '../../../src/gateway/graphql/trusted-documents.js';
import type { ReloadableSettings } from '../../../src/gateway/reload/live-settings.js';
import { holdingUpstream, type HoldingUpstream } from '../../support/holding-upstream.js';
import { startStack, type Stack } from '../../support/stack.js';
import { within } from '../../support/within.js';

/**
 * RunningGateway.reload, in the process: what a request in flight keeps, and
 * what no request meets after a reload.
 */

const SEARCH = 'query Reload($q: String!) { searchCompanies(q: $q, jurisdiction: "GB") { totalCount } }';
const OTHER = 'query Other { __typename }';
const idOf = (document: string) => `sha256:${createHash('sha256').update(document).digest('hex')}`;
const documentsOf = (...documents: string[]): TrustedDocuments => ({
  manifests: ['web.json'],
  documents: new Map(documents.map((document) => [idOf(document), document])),
});
const KEY = 'reload-key-0123456789abcdef0123456789abcdef';
const apiKeys = parseApiKeys('GATEWAY_API_KEYS', `web:${KEY}`).keys;
const settings = (trustedDocuments: TrustedDocuments): ReloadableSettings => ({
  apiKeys,
  jwt: undefined,
  allowAnonymous: false,
  trustedDocuments,
});

let stack: Stack | undefined;
let upstream: HoldingUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  await stack?.close();
  stack = upstream = undefined;
});

const run = (document: string, q: string) => stack!.post({ documentId: idOf(document), variables: { q } }, { 'x-api-key': KEY });
const codeOf = (text: string) => (JSON.parse(text) as { errors?: { extensions: { code: string } }[] }).errors?.[0]?.extensions.code;

describe('reloading trusted documents', () => {
  it('lets a request whose document was found finish, though a reload removes the document while it runs', async () => {
    upstream = await holdingUpstream('ferncastle');
    stack = await startStack({
      upstreamUrl: upstream.url,
      gateway: { apiKeys, allowAnonymous: false, trustedDocuments: documentsOf(SEARCH), allowArbitraryOperations: false },
    });
    upstream.forwardTo(stack.lookup.url);
    const running = run(SEARCH, 'ferncastle');
    await within(upstream.reached, 20_000, 'the search to reach the upstream');
    stack.gateway.reload(settings(documentsOf(OTHER)));
    upstream.release();
    const answer = await running;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ data: { searchCompanies: { totalCount: expect.any(Number) } } });
    // Requests that come after the reload meet the new manifest.
    expect(codeOf((await run(SEARCH, 'ferncastle')).text)).toBe('TRUSTED_DOCUMENT_NOT_FOUND');
    expect((await run(OTHER, 'ferncastle')).status).toBe(200);
  });

  it('serves no kept answer of a document a reload removed', async () => {
    stack = await startStack({
      gateway: { apiKeys, allowAnonymous: false, trustedDocuments: documentsOf(SEARCH), allowArbitraryOperations: false },
    });
    const first = await run(SEARCH, 'zebra');
    expect(first.status).toBe(200);
    // Kept: the same request again is answered from the response cache, without a new search.
    const searches = stack.lookup.counters.searchRequests;
    expect((await run(SEARCH, 'zebra')).text).toBe(first.text);
    expect(stack.lookup.counters.searchRequests).toBe(searches);
    expect(stack.gateway.cacheBytes).toBeGreaterThan(0);

    stack.gateway.reload(settings(documentsOf(OTHER)));
    expect(codeOf((await run(SEARCH, 'zebra')).text)).toBe('TRUSTED_DOCUMENT_NOT_FOUND');
  });

  it('keeps the answers kept where the access settings alone change', async () => {
    stack = await startStack({
      gateway: { apiKeys, allowAnonymous: false, trustedDocuments: documentsOf(SEARCH), allowArbitraryOperations: false },
    });
    const documents = documentsOf(SEARCH);
    stack.gateway.reload(settings(documents));
    const first = await run(SEARCH, 'zebra');
    const searches = stack.lookup.counters.searchRequests;
    stack.gateway.reload({ ...settings(documents), apiKeys: parseApiKeys('GATEWAY_API_KEYS', `web:${KEY},app:${KEY}x`).keys });
    expect((await run(SEARCH, 'zebra')).text).toBe(first.text);
    expect(stack.lookup.counters.searchRequests).toBe(searches);
  });
});
