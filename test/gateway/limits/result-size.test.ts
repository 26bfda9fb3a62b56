/**
 * The size an operation's answer could reach is bounded before it runs
 * (MAX_RESULT_FIELDS). Found by the adversarial review of issue 12: every
 * other limit counted the document's shape and its upstream searches, so 15
 * aliases of one full page (one upstream search) answered 993 KB for 50–70 ms
 * of CPU, and RATE_LIMIT_BURST let one client send 100 of them at once.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultSize } from '../../../src/gateway/limits/result-size.js';
import { fixtureCompanies } from '../../../src/lookup-service/index.js';
import { schema } from '../../../src/schema/index.js';
import { MAX_PREVIOUS_NAMES } from '../../../src/upstream/search-response.js';
import { DashboardSearchDocument, SearchCompaniesDocument } from '../../generated/graphql.js';
import { fragmentDiamond } from '../../support/fragment-diamond.js';
import { startStack, type Stack } from '../../support/stack.js';

const COMPANY = `fragment F on Company { id name companyNumber jurisdiction status statusText incorporatedDate isPlatformMember
  address { formatted streetLine1 streetLine2 city region postcode country countryCode latitude longitude }
  previousNames { name startDate endDate } avatar { image initials } }`;

/** 15 aliases (MAX_ALIASES) of one full page of one search, with edges and nodes: one distinct upstream search. */
function fullPagesUnderAliases(): string {
  const alias = (k: number) =>
    `a${k}: searchCompanies(q: "holdings", jurisdiction: "GB", pageSize: 50) { edges { cursor node { ...F } } nodes { ...F } }`;
  return `{ ${Array.from({ length: 15 }, (_, k) => alias(k)).join('\n')} }\n${COMPANY}`;
}

/** The fields of an answer's data, as MAX_RESULT_FIELDS counts them: every key once, and a list's entries each with their own. */
function fieldCount(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, entry) => sum + fieldCount(entry), 0);
  if (value === null || typeof value !== 'object') return 0;
  return Object.values(value).reduce((sum: number, field) => sum + 1 + fieldCount(field), 0);
}

/**
 * The fields of the largest answer `document` can have: run on a stack whose
 * every company has every field and MAX_PREVIOUS_NAMES previous names, its
 * answer is as large as the count made before it runs. Counted from a real
 * answer, so that a field added to the operation changes it with no change here.
 */
async function largestAnswerFields<TData, TVariables>(document: TypedDocumentNode<TData, TVariables>, variables: TVariables) {
  const full = await startStack({ gateway: { rateLimitPerMinute: 0, maxResultFields: Number.MAX_SAFE_INTEGER } });
  try {
    const complete = fixtureCompanies.withPreviousNames;
    full.lookup.knobs.mapResults = (results) =>
      results.map(({ name, companyNumber }) => ({
        ...complete,
        name,
        companyNumber,
        previousNames: Array.from({ length: MAX_PREVIOUS_NAMES }, (_, i) => complete.previousNames[i % complete.previousNames.length]!),
      }));
    const { body } = await full.execute(document, variables);
    expect(body.errors).toBeUndefined();
    return fieldCount(body.data);
  } finally {
    await full.close();
  }
}

let stack: Stack;
let small: Stack;
beforeAll(async () => {
  [stack, small] = await Promise.all([
    startStack({ gateway: { rateLimitPerMinute: 0 } }),
    startStack({ gateway: { rateLimitPerMinute: 0, maxResultFields: 1_000 } }),
  ]);
});
afterAll(() => Promise.all([stack.close(), small.close()]));

describe('MAX_RESULT_FIELDS', () => {
  it('refuses, before any upstream call, an operation whose answer repeats a full page under every alias', async () => {
    const before = stack.lookup.counters.searchRequests;
    const { status, text } = await stack.post({ query: fullPagesUnderAliases() });
    expect(status).toBe(400);
    const [error] = JSON.parse(text).errors;
    // Counted from this document alone: F holds 83 fields (8, address 1 + 10, previousNames 1 + 20 × 3, avatar 1 + 2); an
    // alias 1 + edges (1 + 50 × (cursor + node + 83)) + nodes (1 + 50 × 83) = 8,403; and 15 aliases 126,045.
    expect(error.extensions).toEqual({
      requestId: expect.any(String),
      code: 'OPERATION_TOO_COMPLEX',
      resultFields: 126_045,
      maxResultFields: 10_000,
    });
    expect(error.message).toMatch(
      /^The answer to this operation could hold 126045 fields; at most 10000 are allowed \(MAX_RESULT_FIELDS\)/,
    );
    expect(stack.lookup.counters.searchRequests).toBe(before);
  });

  it('admits every example operation, at the largest page', async () => {
    const card = await stack.execute(SearchCompaniesDocument, { q: 'holdings', jurisdiction: 'GB', pageSize: 50 });
    expect(card.status).toBe(200);
    expect(card.body.errors).toBeUndefined();
    expect(card.body.data?.searchCompanies.edges).toHaveLength(50);
    const dashboard = await stack.execute(DashboardSearchDocument, { q: 'holdings', jurisdiction: 'GB' });
    expect(dashboard.body.errors).toBeUndefined();
  });

  it('counts a page size given by a variable at its value, or its default, per request', async () => {
    // The card holds a few hundred fields at a page of 5, thousands at 50: the limit of 1,000 lies between.
    const at = (pageSize: number) => small.execute(SearchCompaniesDocument, { q: 'holdings', jurisdiction: 'GB', pageSize });
    expect((await at(5)).body.errors).toBeUndefined();
    const resultFields = await largestAnswerFields(SearchCompaniesDocument, { q: 'holdings', jurisdiction: 'GB', pageSize: 50 });
    expect((await at(50)).body.errors?.[0]?.extensions).toMatchObject({ code: 'OPERATION_TOO_COMPLEX', resultFields });
    const withDefault = (value: number) =>
      small.post({
        query: `query ($n: Int = ${value}) { searchCompanies(q: "holdings", jurisdiction: "GB", first: $n) { nodes { ...F } } }\n${COMPANY}`,
      });
    expect(JSON.parse((await withDefault(5)).text).errors).toBeUndefined();
    expect(JSON.parse((await withDefault(50)).text).errors[0].extensions.code).toBe('OPERATION_TOO_COMPLEX');
  });

  it('counts a backward page at its last', async () => {
    const last = (size: number) =>
      small.post({ query: `{ searchCompanies(q: "holdings", jurisdiction: "GB", last: ${size}) { nodes { ...F } } }\n${COMPANY}` });
    expect(JSON.parse((await last(5)).text).errors).toBeUndefined();
    expect(JSON.parse((await last(50)).text).errors[0].extensions.code).toBe('OPERATION_TOO_COMPLEX');
  });

  it('sizes each fragment once however often it is spread: a diamond of fragments is counted, not walked', () => {
    // Each fragment spreads the next twice, 20 deep: walked spread by spread, the page at the bottom is met 2^20 times.
    const document = parse(fragmentDiamond(20, 'searchCompanies(q: "a", jurisdiction: "GB", pageSize: 50) { nodes { name } }'));
    const operation = document.definitions[0]!;
    if (operation.kind !== 'OperationDefinition') throw new Error('the diamond starts with its operation');
    let listsMet = 0;
    const listBound = (_type: string, _field: string, pageSize: number | undefined) => {
      listsMet += 1;
      return pageSize ?? 50;
    };
    const size = resultSize(schema, document, operation, listBound, (field) => (field.name.value === 'searchCompanies' ? 50 : undefined));
    expect(size).toBe(2 ** 20 * (1 + 1 + 50));
    expect(listsMet).toBe(1);
  });
});

describe('previous names', () => {
  it(`are read up to ${MAX_PREVIOUS_NAMES} a company, the length the answer is sized with; the rest are left out and logged`, async () => {
    const own = await startStack({ gateway: { rateLimitPerMinute: 0 } });
    try {
      own.lookup.knobs.mapResults = (results) =>
        results.map((result) => ({ ...result, previousNames: Array.from({ length: 30 }, (_, i) => ({ name: `Old Name ${i}` })) }));
      const { text } = await own.post({
        query: '{ searchCompanies(q: "holdings", jurisdiction: "GB", pageSize: 2) { nodes { previousNames { name } } } }',
      });
      const { data, errors } = JSON.parse(text);
      expect(errors).toBeUndefined();
      expect(data.searchCompanies.nodes[0].previousNames.map((entry: { name: string }) => entry.name)).toEqual(
        Array.from({ length: MAX_PREVIOUS_NAMES }, (_, i) => `Old Name ${i}`),
      );
      expect(own.logs.some((line) => line.includes(`more than ${MAX_PREVIOUS_NAMES} previous names`))).toBe(true);
    } finally {
      await own.close();
    }
  });
});
