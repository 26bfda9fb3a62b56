import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { allFixtureCompanies, fixtureCompanies, fixtureCompaniesByStatus } from '../../src/lookup-service/index.js';
import { CompanyByNumberDocument, DashboardSearchDocument, NodeByIdDocument, SearchCompaniesDocument } from '../generated/graphql.js';
import { BAD_INPUT_CASES } from '../support/bad-input-cases.js';
import { send, type HttpRequest } from '../support/http.js';
import { startStack, type Stack } from '../support/stack.js';

/** Both gateways' settings: every search reaches the upstream's window cache, not the answer cache, and no 429 part-way. */
const GATEWAY = { rateLimitPerMinute: 0, responseCache: false, cacheTtlMs: 1, cacheStaleWhileRevalidateMs: 0 };
/** Requests to the compiling gateway per case: the first ones run on graphql-js until the document is compiled. */
const SENDS = 4;

// biome-ignore lint/suspicious/noExplicitAny: faults are written into results at any depth.
type Json = Record<string, any>;
type ResultsChange = (result: Json) => unknown;

let compiled: Stack;
let reference: Stack;
/** A clock of the gateways' own (fetchedAt, staleness) that moves only between cases, so both answer at the same instant. */
let now = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'], now });
  [compiled, reference] = await Promise.all([
    startStack({ lookup: { companies: allFixtureCompanies }, gateway: GATEWAY }),
    startStack({ lookup: { companies: allFixtureCompanies }, gateway: GATEWAY, compiledExecution: false }),
  ]);
});
afterAll(async () => {
  await Promise.all([compiled?.close(), reference?.close()]);
  vi.useRealTimers();
});

function operation(document: Parameters<typeof print>[0], variables: Json): HttpRequest {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: print(document), variables }),
  };
}

/**
 * Sends `request` to the gateway running graphql-js alone, then `SENDS` times
 * to the one compiling repeated operations, with the upstream changed by
 * `changes` on both; every answer must be the reference's, byte for byte.
 */
async function expectSameAnswers(sent: HttpRequest, changes: Record<string, ResultsChange> = {}): Promise<string> {
  // One request id for both, which errors carry in extensions.requestId.
  const request = { ...sent, headers: { 'x-request-id': 'compared', ...sent.headers } };
  now += 1_000;
  vi.setSystemTime(now);
  for (const stack of [compiled, reference]) {
    stack.lookup.knobs.mapResults = (results) =>
      results.map((result) => changes[result.companyNumber]?.(structuredClone(result) as unknown as Json) ?? result);
  }
  const expected = await send(reference.gateway.url, { path: '/graphql', ...request });
  for (let sent = 0; sent < SENDS; sent++) {
    const answer = await send(compiled.gateway.url, { path: '/graphql', ...request });
    expect({ status: answer.status, body: answer.text }).toEqual({ status: expected.status, body: expected.text });
  }
  return expected.text;
}

const FERNCASTLE_SEARCH = { q: 'ferncastle', jurisdiction: 'GB', pageSize: 50 };
const TARGET = fixtureCompaniesByStatus.INACTIVE.companyNumber;
const OTHER = fixtureCompaniesByStatus.IN_LIQUIDATION.companyNumber;

describe('graphql-jit answers byte for byte as graphql-js', () => {
  it.each([
    ['a first page', FERNCASTLE_SEARCH],
    ['a small page', { ...FERNCASTLE_SEARCH, pageSize: 3 }],
    ['first and last', { q: 'ferncastle', jurisdiction: 'GB', first: 2, last: 2 }],
    ['a search with no results', { q: 'no such word anywhere', jurisdiction: 'GB' }],
    ['an empty q', { q: '   ', jurisdiction: 'GB' }],
    ['a page size out of range', { ...FERNCASTLE_SEARCH, pageSize: 500 }],
    ['a cursor of no search', { ...FERNCASTLE_SEARCH, after: 'bm90IGEgY3Vyc29y' }],
    ['a jurisdiction that is no code', { q: 'ferncastle', jurisdiction: 'Britain' }],
    ['a q that is a number', { q: 42, jurisdiction: 'GB' }],
    ['no q', { jurisdiction: 'GB' }],
  ])('SearchCompanies: %s', async (_, variables) => {
    await expectSameAnswers(operation(SearchCompaniesDocument, variables));
  });

  it('SearchCompanies paging forward and back with the cursors it gave', async () => {
    const first = JSON.parse(await expectSameAnswers(operation(SearchCompaniesDocument, { ...FERNCASTLE_SEARCH, pageSize: 3 })));
    const { endCursor } = first.data.searchCompanies.pageInfo;
    const second = JSON.parse(
      await expectSameAnswers(operation(SearchCompaniesDocument, { ...FERNCASTLE_SEARCH, pageSize: 3, after: endCursor })),
    );
    await expectSameAnswers(
      operation(SearchCompaniesDocument, {
        q: 'ferncastle',
        jurisdiction: 'GB',
        last: 2,
        before: second.data.searchCompanies.pageInfo.startCursor,
      }),
    );
  });

  it.each([
    ['a dashboard search', DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' }],
    [
      'a company by number',
      CompanyByNumberDocument,
      { jurisdiction: 'GB', companyNumber: fixtureCompanies.withPreviousNames.companyNumber },
    ],
    ['a company that does not exist', CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: '99999999' }],
    ['a company number too long', CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: '1'.repeat(1_000) }],
    ['a node by id', NodeByIdDocument, { id: Buffer.from(`Company:GB:${TARGET}`).toString('base64') }],
    ['a node id of no type', NodeByIdDocument, { id: Buffer.from('Nothing:GB:1').toString('base64') }],
    ['a node id that is no id', NodeByIdDocument, { id: '!!' }],
  ] as const)('%s', async (_, document, variables) => {
    await expectSameAnswers(operation(document, variables));
  });

  it.each(BAD_INPUT_CASES.map((badInput) => [badInput.name, badInput.request] as const))('bad input: %s', async (_, request) => {
    await expectSameAnswers(request);
  });

  it.each<[string, Record<string, ResultsChange>]>([
    ['a clean payload', {}],
    [
      'every field of one result malformed',
      {
        [TARGET]: (result) => ({
          ...result,
          jurisdiction: 7,
          status: ['x'],
          incorporatedDate: 'not a date',
          isPlatformMember: 'yes',
          avatar: { ...result.avatar, image: 'not a url' },
          addressStructured: { ...result.addressStructured, latitude: 'north', city: 12, country: 'Atlantis' },
          previousNames: [{ name: 'Ferncastle Sleeping Ltd', startDate: '2020-13-45', endDate: 5 }, { startDate: '2011-01-02' }],
        }),
      },
    ],
    ['an address of neither form', { [TARGET]: (result) => ({ ...result, address: 42, addressStructured: null }) }],
    ['an addressStructured that is a string', { [TARGET]: (result) => ({ ...result, addressStructured: 'SW1H 0BD' }) }],
    ['an avatar and previous names that are strings', { [TARGET]: (result) => ({ ...result, avatar: 'F', previousNames: 'Old Ltd' }) }],
    [
      'statuses unknown and in words',
      { [TARGET]: (result) => ({ ...result, status: 'SOMETHING_NEW' }), [OTHER]: (result) => ({ ...result, status: 'in-liquidation' }) },
    ],
    [
      'results without name or number',
      {
        [TARGET]: ({ name: _name, ...rest }) => rest,
        [OTHER]: (result) => ({ ...result, companyNumber: 12345 }),
        [fixtureCompaniesByStatus.DISSOLVED.companyNumber]: () => null,
      },
    ],
  ])('a tolerated payload: %s', async (_, changes) => {
    await expectSameAnswers(operation(SearchCompaniesDocument, FERNCASTLE_SEARCH), changes);
  });
});
