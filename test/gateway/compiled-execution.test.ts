import { describe, expect, it } from 'vitest';
import { fixtureCompanies, fixtureCompaniesByStatus } from '../../src/lookup-service/index.js';
import { CompanyByNumberDocument, DashboardSearchDocument, NodeByIdDocument, SearchCompaniesDocument } from '../generated/graphql.js';
import { BAD_INPUT_CASES } from '../support/bad-input-cases.js';
import {
  type Compared,
  comparedGateways,
  expectCompiled,
  expectNeverCompiled,
  expectRunAgain,
  operation,
  type ResultsChange,
} from '../support/compared-gateways.js';

const { expectSameAnswers } = comparedGateways();

const FERNCASTLE_SEARCH = { q: 'ferncastle', jurisdiction: 'GB', pageSize: 50 };
const TARGET = fixtureCompaniesByStatus.INACTIVE.companyNumber;
const OTHER = fixtureCompaniesByStatus.IN_LIQUIDATION.companyNumber;
/**
 * The bad inputs of the battery that reach execution: variables of a valid search that graphql-js's coercion refuses.
 * graphql-jit runs them once compiled and its answer, with errors, is discarded. Every other bad input is refused
 * before execution, by both gateways alike: compared, they prove only that compiled execution changes no refusal.
 */
const BAD_VARIABLES_OF_A_SEARCH: ReadonlySet<string> = new Set([
  'q a number',
  'q null',
  'q missing',
  'q an object',
  'q a list',
  'jurisdiction a number',
  'jurisdiction a list',
  'pageSize a string',
  'pageSize a fraction',
  'pageSize beyond 32 bits',
  'pageSize a boolean',
  'after a number',
  'after an object',
  'variables nested very deep',
]);

describe('graphql-jit answers byte for byte as graphql-js', () => {
  it.each([
    ['a first page', FERNCASTLE_SEARCH, expectCompiled],
    ['a small page', { ...FERNCASTLE_SEARCH, pageSize: 3 }, expectCompiled],
    ['first and last', { q: 'ferncastle', jurisdiction: 'GB', first: 2, last: 2 }, expectRunAgain],
    ['a search with no results', { q: 'no such word anywhere', jurisdiction: 'GB' }, expectCompiled],
    ['an empty q', { q: '   ', jurisdiction: 'GB' }, expectRunAgain],
    ['a page size out of range', { ...FERNCASTLE_SEARCH, pageSize: 500 }, expectRunAgain],
    ['a cursor of no search', { ...FERNCASTLE_SEARCH, after: 'bm90IGEgY3Vyc29y' }, expectRunAgain],
    ['a jurisdiction that is no code', { q: 'ferncastle', jurisdiction: 'Britain' }, expectRunAgain],
    ['a q that is a number', { q: 42, jurisdiction: 'GB' }, expectRunAgain],
    ['no q', { jurisdiction: 'GB' }, expectRunAgain],
  ] as const)('SearchCompanies: %s', async (_, variables, answered) => {
    answered(await expectSameAnswers(operation(SearchCompaniesDocument, variables)));
  });

  it('SearchCompanies paging forward and back with the cursors it gave, each page answered compiled', async () => {
    const page = async (variables: Record<string, unknown>) => {
      const compared = await expectSameAnswers(operation(SearchCompaniesDocument, variables));
      expectCompiled(compared);
      const { searchCompanies } = JSON.parse(compared.text).data;
      // Pages of companies, not empty ones that any two executors would answer alike.
      expect(searchCompanies.edges.length).toBeGreaterThan(0);
      return searchCompanies.pageInfo;
    };
    const first = await page({ ...FERNCASTLE_SEARCH, pageSize: 3 });
    const second = await page({ ...FERNCASTLE_SEARCH, pageSize: 3, after: first.endCursor });
    await page({ q: 'ferncastle', jurisdiction: 'GB', last: 2, before: second.startCursor });
  });

  it.each([
    ['a dashboard search', DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' }, expectCompiled],
    [
      'a company by number',
      CompanyByNumberDocument,
      { jurisdiction: 'GB', companyNumber: fixtureCompanies.withPreviousNames.companyNumber },
      expectCompiled,
    ],
    ['a company that does not exist', CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: '99999999' }, expectCompiled],
    ['a company number too long', CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: '1'.repeat(1_000) }, expectRunAgain],
    ['a node by id', NodeByIdDocument, { id: Buffer.from(`Company:GB:${TARGET}`).toString('base64') }, expectCompiled],
    ['a node id of no type', NodeByIdDocument, { id: Buffer.from('Nothing:GB:1').toString('base64') }, expectRunAgain],
    ['a node id that is no id', NodeByIdDocument, { id: '!!' }, expectRunAgain],
  ] as const)('%s', async (_, document, variables, answered) => {
    answered(await expectSameAnswers(operation(document, variables)));
  });

  it('lists as reaching graphql-jit only bad inputs the battery has', () => {
    expect(BAD_INPUT_CASES.map(({ name }) => name)).toEqual(expect.arrayContaining([...BAD_VARIABLES_OF_A_SEARCH]));
  });

  it.each(
    BAD_INPUT_CASES.map(
      (badInput) =>
        [badInput.name, badInput.request, BAD_VARIABLES_OF_A_SEARCH.has(badInput.name) ? expectRunAgain : expectNeverCompiled] as const,
    ),
  )('bad input: %s, refused as graphql-js refuses it', async (_, request, answered) => {
    const compared = await expectSameAnswers(request);
    expect(compared.text).toContain('"errors"');
    answered(compared);
  });

  it.each<[string, Record<string, ResultsChange>, (compared: Compared) => void]>([
    ['a clean payload', {}, expectCompiled],
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
      expectRunAgain,
    ],
    ['an address of neither form', { [TARGET]: (result) => ({ ...result, address: 42, addressStructured: null }) }, expectRunAgain],
    ['an addressStructured that is a string', { [TARGET]: (result) => ({ ...result, addressStructured: 'SW1H 0BD' }) }, expectRunAgain],
    [
      'an avatar and previous names that are strings',
      { [TARGET]: (result) => ({ ...result, avatar: 'F', previousNames: 'Old Ltd' }) },
      expectRunAgain,
    ],
    [
      'statuses unknown and in words',
      { [TARGET]: (result) => ({ ...result, status: 'SOMETHING_NEW' }), [OTHER]: (result) => ({ ...result, status: 'in-liquidation' }) },
      expectCompiled,
    ],
    [
      'results without name or number',
      {
        [TARGET]: ({ name: _name, ...rest }) => rest,
        [OTHER]: (result) => ({ ...result, companyNumber: 12345 }),
        [fixtureCompaniesByStatus.DISSOLVED.companyNumber]: () => null,
      },
      // Only the search's own resolver notes what it left out: the compiled answer stands, with those errors.
      expectCompiled,
    ],
    [
      'a result left out and another malformed',
      { [TARGET]: ({ name: _name, ...rest }) => rest, [OTHER]: (result) => ({ ...result, avatar: 'F' }) },
      // The search's error is kept, the avatar's noted once: graphql-js runs again from where the search left the notes.
      expectRunAgain,
    ],
  ])('a tolerated payload: %s', async (_, changes, answered) => {
    answered(await expectSameAnswers(operation(SearchCompaniesDocument, FERNCASTLE_SEARCH), changes));
  });
});
