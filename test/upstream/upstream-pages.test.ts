/**
 * What the gateway keeps of an upstream answer is bounded by what it asked
 * for, whatever the upstream sends. Found by the adversarial review of issue 12.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UPSTREAM_MAX_PAGE_SIZE } from '../../src/upstream/search-call.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const SEARCH = '{ searchCompanies(q: "holdings", jurisdiction: "GB", pageSize: 50) { totalCount reachableCount nodes { companyNumber } } }';

describe('an upstream page', () => {
  // Review: an answer of 12,000 results (8 MiB) was read, kept and paged through whole: one window of 9.9 MiB,
  // reachableCount 12000, a 126 ms stall of the event loop.
  it('holds at most the page size the gateway asked for, however many results the upstream sends', async () => {
    stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
    // Small results, so that the answer stays under MAX_UPSTREAM_RESPONSE_BYTES.
    stack.lookup.knobs.mapResults = (results) =>
      Array.from({ length: 2_000 }, (_, i) => ({ name: results[0]!.name, companyNumber: `X${i}` }));
    const { status, text } = await stack.post({ query: SEARCH });
    expect(status).toBe(200);
    const { data, errors } = JSON.parse(text);
    expect(errors).toBeUndefined();
    expect(data.searchCompanies.reachableCount).toBe(UPSTREAM_MAX_PAGE_SIZE);
    expect(data.searchCompanies.nodes.map((node: { companyNumber: string }) => node.companyNumber)).toEqual(
      Array.from({ length: 50 }, (_, i) => `X${i}`),
    );
    expect(stack.gateway.cacheBytes).toBeLessThan(256 * 1024);
    expect(stack.logs.some((line) => line.includes('"leftOut":1950'))).toBe(true);
  });

  it('is refused as UPSTREAM_BAD_RESPONSE when its body is over MAX_UPSTREAM_RESPONSE_BYTES (1 MiB), and nothing is kept', async () => {
    stack = await startStack({ gateway: { rateLimitPerMinute: 0, upstreamRetries: 0 } });
    // About 1.5 MiB: fifty times a full page of the data set's results (26–29 KB), under the 8 MiB read before.
    const padding = 'x'.repeat(1_000);
    stack.lookup.knobs.mapResults = (results) =>
      Array.from({ length: 1_500 }, (_, i) => ({ ...results[0]!, companyNumber: `X${i}`, padding }));
    const { text } = await stack.post({ query: SEARCH });
    expect(JSON.parse(text).errors[0].extensions.code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(stack.gateway.cacheBytes).toBeLessThan(64 * 1024);
  });
});

describe('an upstream total', () => {
  // Review: a total past 2^31 - 1 was taken as a count, and totalCount (Int!) could not serialize it: every such
  // search was `data: null` with INTERNAL_SERVER_ERROR, for as long as its window stayed cached.
  it('too large for totalCount is read like any malformed field, not as an internal error', async () => {
    stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
    stack.lookup.knobs.failSearch({ status: 200, body: '{"results":[{"name":"Acme Ltd","companyNumber":"123"}],"total":3000000000}' });
    const { text } = await stack.post({ query: '{ searchCompanies(q: "acme", jurisdiction: "GB") { totalCount nodes { name } } }' });
    const body = JSON.parse(text);
    expect(body.errors?.map((error: { extensions?: { code?: string } }) => error.extensions?.code) ?? []).not.toContain(
      'INTERNAL_SERVER_ERROR',
    );
    // As for a total that is missing or not a count: the results read stand in for it, and the log says so.
    expect(body.data?.searchCompanies).toEqual({ totalCount: 1, nodes: [{ name: 'Acme Ltd' }] });
    expect(stack.logs.some((line) => line.includes('Upstream sent malformed fields') && line.includes('"total"'))).toBe(true);
  });
});
