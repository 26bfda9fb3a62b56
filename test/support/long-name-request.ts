import { defaultDataSet, searchIndexFor } from '../../src/lookup-service/index.js';

/** The name the upstream sends at length: 1,000,000 ASCII characters (the body stays under its 1 MiB cap), padded with a character names never hold. */
export const LONG_NAME = 'Long Holdings Ltd '.padEnd(1_000_000, '~');

/** The search the review's request repeats. */
export const SEARCH = { q: 'holdings', jurisdiction: 'GB' };

/** A company that search finds, third: the one the long-name tests have the upstream name at length, and `company` asks for. */
export const TARGET = searchIndexFor(defaultDataSet()).search({ ...SEARCH, page: 1, pageSize: 50 }).results[2]!;

/**
 * The request of the review of issue 27, anonymous and within every limit: 15
 * aliases (MAX_ALIASES) of one full page with nodes and edges, plus company.
 */
export const LONG_NAME_REQUEST = {
  query: `{
  ${Array.from(
    { length: 15 },
    (_, k) => `a${k}: searchCompanies(q: "${SEARCH.q}", jurisdiction: "${SEARCH.jurisdiction}", first: 50) {
    nodes { companyNumber name } edges { cursor node { companyNumber name } } }`,
  ).join('\n  ')}
  company(jurisdiction: "GB", companyNumber: "${TARGET.companyNumber}") { companyNumber name }
}`,
};
