import { print } from 'graphql';
import { Agent } from 'undici';
import { fixtureCompanies } from '../../src/lookup-service/index.js';
import {
  CompanyByNumberDocument,
  NodeByIdDocument,
  SearchCompaniesDocument,
  type CompanyByNumberQuery,
  type NodeByIdQuery,
  type SearchCompaniesQuery,
} from '../generated/graphql.js';
import { postGraphQL, type Exchange } from './graphql-http.js';

const TIMEOUT_MS = 10_000;

/**
 * Once the upstream is healthy again, a normal search, lookup and refetch
 * must be answered in full: fresh data, no errors, no warnings. Returns the
 * problems found, none when the gateway has recovered.
 */
export async function checkHealthyAnswers(graphqlUrl: string): Promise<string[]> {
  const fixture = fixtureCompanies.uniqueName;
  const problems: string[] = [];
  const dispatcher = new Agent();
  try {
    const search = await postGraphQL(
      dispatcher,
      graphqlUrl,
      { query: print(SearchCompaniesDocument), variables: { q: fixture.name, jurisdiction: fixture.jurisdiction, pageSize: 5 } },
      TIMEOUT_MS,
    );
    const connection = cleanData<SearchCompaniesQuery>('search', search, problems)?.searchCompanies;
    const first = connection?.edges[0]?.node;
    if (connection && (connection.stale || first?.companyNumber !== fixture.companyNumber || first.name !== fixture.name)) {
      problems.push(
        `search for ${JSON.stringify(fixture.name)}: expected ${fixture.companyNumber} first and fresh, got ${JSON.stringify(connection).slice(0, 300)}`,
      );
    }

    const lookup = await postGraphQL(
      dispatcher,
      graphqlUrl,
      { query: print(CompanyByNumberDocument), variables: { jurisdiction: fixture.jurisdiction, companyNumber: fixture.companyNumber } },
      TIMEOUT_MS,
    );
    const company = cleanData<CompanyByNumberQuery>('company', lookup, problems)?.company;
    if (company !== undefined && (company?.name !== fixture.name || company.status !== fixture.status)) {
      problems.push(
        `company(${fixture.jurisdiction}, ${fixture.companyNumber}): expected ${fixture.name} ${fixture.status}, got ${JSON.stringify(company).slice(0, 300)}`,
      );
    }

    if (first) {
      const refetch = await postGraphQL(
        dispatcher,
        graphqlUrl,
        { query: print(NodeByIdDocument), variables: { id: first.id } },
        TIMEOUT_MS,
      );
      const node = cleanData<NodeByIdQuery>('node', refetch, problems)?.node;
      if (node !== undefined && node?.name !== fixture.name)
        problems.push(`node(${first.id}): expected ${fixture.name}, got ${JSON.stringify(node)}`);
    }
  } finally {
    await dispatcher.close();
  }
  return problems;
}

/** The data of a 200 answer without errors or warnings; otherwise undefined, with the problem recorded. */
function cleanData<T>(what: string, exchange: Exchange, problems: string[]): T | undefined {
  if (exchange.kind === 'failed') problems.push(`${what}: ${exchange.outcome}: ${exchange.reason}`);
  else if (exchange.kind === 'invalid') problems.push(`${what}: not a GraphQL response: ${exchange.reason}`);
  else if (exchange.status !== 200 || exchange.body.errors || exchange.body.extensions?.warnings) {
    problems.push(`${what}: expected a clean 200 answer, got ${exchange.status} ${JSON.stringify(exchange.body).slice(0, 400)}`);
  } else {
    return exchange.body.data as T;
  }
  return undefined;
}
