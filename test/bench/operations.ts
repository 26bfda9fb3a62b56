import { readFileSync } from 'node:fs';
import { API_KEY_HEADER, BENCH_API_KEY } from './gateway-env.js';
import type { LoadRequest } from './load.js';

export const GRAPHQL_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/graphql-response+json',
  [API_KEY_HEADER]: BENCH_API_KEY,
};

export interface Operation {
  name: string;
  /** The document exactly as the test operation file has it. */
  query: string;
}

function operationFile(file: string, name: string): Operation {
  return { name, query: readFileSync(new URL(`../operations/${file}`, import.meta.url), 'utf8') };
}

/** Every field of a company card, a page at a time. */
export const SEARCH_COMPANIES = operationFile('search-companies.graphql', 'SearchCompanies');
/** A dashboard's small selection, pageSize 50 in the document. */
export const DASHBOARD_SEARCH = operationFile('dashboard-search.graphql', 'DashboardSearch');

export function graphqlRequest(path: string, operation: Operation, variables: Record<string, unknown>): LoadRequest {
  return {
    method: 'POST',
    path,
    headers: GRAPHQL_HEADERS,
    body: JSON.stringify({ query: operation.query, operationName: operation.name, variables }),
  };
}

interface SearchAnswer {
  data?: { searchCompanies?: { totalCount?: number } | null } | null;
  errors?: unknown[];
}

/** A 200 with data, no `errors` and a non-zero totalCount. */
export function checkSearchAnswer(status: number, body: Buffer): string | undefined {
  return checkTotal(status, body, (total) => (total > 0 ? undefined : 'no results'));
}

/** A 200 with data, no `errors` and at most one result. */
export function checkSmallSearchAnswer(status: number, body: Buffer): string | undefined {
  return checkTotal(status, body, (total) => (total <= 1 ? undefined : `${total} results, not 0 or 1`));
}

function checkTotal(status: number, body: Buffer, checkCount: (total: number) => string | undefined): string | undefined {
  if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
  let answer: SearchAnswer;
  try {
    answer = JSON.parse(body.toString('utf8')) as SearchAnswer;
  } catch {
    return `not JSON: ${body.toString('utf8', 0, 300)}`;
  }
  if (answer.errors !== undefined) return `errors: ${JSON.stringify(answer.errors).slice(0, 300)}`;
  const connection = answer.data?.searchCompanies;
  if (!connection) return `no data.searchCompanies: ${body.toString('utf8', 0, 300)}`;
  const problem = checkCount(connection.totalCount ?? 0);
  return problem === undefined ? undefined : `${problem}: ${body.toString('utf8', 0, 300)}`;
}

/** `fetchedAt` says when the upstream was asked, which differs between two servers calling it apart and nothing else should. */
const FETCHED_AT = /"fetchedAt":"[^"]*"/g;

/** An answer with its `fetchedAt` values blanked, to compare two servers' answers byte for byte. */
export function withoutFetchedAt(body: Buffer): Buffer {
  return Buffer.from(body.toString('utf8').replace(FETCHED_AT, '"fetchedAt":"-"'));
}
