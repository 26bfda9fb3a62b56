import { ApolloClient, HttpLink } from '@apollo/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompanyByNumberDocument,
  NodeByIdDocument,
  SearchCompaniesDocument,
  type SearchCompaniesQuery,
  type SearchCompaniesQueryVariables,
} from '../generated/graphql.js';
import { matchCount } from '../support/data-set.js';
import { startStack, type Stack } from '../support/stack.js';
import { createCache } from './apollo-cache.js';

type Connection = SearchCompaniesQuery['searchCompanies'];

/**
 * Apollo Client with the cache docs/clients.md shows, over real HTTP to the gateway, counting the requests it sends;
 * `useGETForQueries` sends queries by GET, as apps do to let HTTP caches keep the answers.
 */
function apolloClient(stack: Stack, { useGETForQueries = false } = {}) {
  const requests: string[] = [];
  const answers: Response[] = [];
  const client = new ApolloClient({
    cache: createCache(),
    link: new HttpLink({
      uri: stack.gateway.graphqlUrl,
      useGETForQueries,
      fetch: async (input, init) => {
        requests.push(init?.method === 'GET' ? `GET ${String(input)}` : String(init?.body));
        const answer = await fetch(input, init);
        answers.push(answer);
        return answer;
      },
    }),
  });
  return { client, requests, answers };
}

describe.each([
  // 50 matches of 'trading' reachable without a page parameter, all of them with one.
  ['without UPSTREAM_PAGE_PARAM', undefined, 10, 50],
  ['with UPSTREAM_PAGE_PARAM', 'page', 22, matchCount('trading')],
])("Apollo Client's relay-style pagination (%s)", (_, upstreamPageParam, pageSize, reachable) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { upstreamPageParam } });
  });
  afterAll(() => stack.close());

  const search = { q: 'trading', jurisdiction: 'GB' };

  /** Each page fetched is merged by the cache into one list, which the query answers with. */
  async function page(client: ApolloClient, paging: Partial<SearchCompaniesQueryVariables>): Promise<Connection> {
    const { data } = await client.query({
      query: SearchCompaniesDocument,
      variables: { ...search, ...paging },
      fetchPolicy: 'network-only',
    });
    return data!.searchCompanies;
  }
  const ids = (connection: Connection) => connection.edges.map((edge) => edge.node.id);

  it('merges pages fetched forward, and pages fetched backward, into the same list', async () => {
    const forward = apolloClient(stack).client;
    let merged = await page(forward, { first: pageSize });
    while (merged.pageInfo.hasNextPage) merged = await page(forward, { first: pageSize, after: merged.pageInfo.endCursor });
    expect(ids(merged)).toHaveLength(reachable);
    expect(new Set(ids(merged)).size).toBe(reachable);

    const backward = apolloClient(stack);
    let fromEnd = await page(backward.client, { last: pageSize });
    while (fromEnd.pageInfo.hasPreviousPage)
      fromEnd = await page(backward.client, { last: pageSize, before: fromEnd.pageInfo.startCursor });
    expect(backward.requests).toHaveLength(Math.ceil(reachable / pageSize));
    expect(ids(fromEnd)).toEqual(ids(merged));
    expect(fromEnd.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: false });
  });

  it('works unchanged with queries sent by GET, whose answers HTTP caches may keep', async () => {
    const { client, requests, answers } = apolloClient(stack, { useGETForQueries: true });
    let merged = await page(client, { first: pageSize });
    while (merged.pageInfo.hasNextPage) merged = await page(client, { first: pageSize, after: merged.pageInfo.endCursor });
    expect(ids(merged)).toHaveLength(reachable);
    expect(requests.every((request) => request.startsWith('GET '))).toBe(true);
    expect(answers.map((answer) => answer.headers.get('cache-control'))).toEqual(
      answers.map(() => expect.stringMatching(/^public, max-age=\d+, stale-while-revalidate=\d+, stale-if-error=\d+$/)),
    );
    expect(answers.every((answer) => answer.headers.get('etag') !== null)).toBe(true);
  });

  it('answers company(...) and node(id:) from the cache for a company a search brought', async () => {
    const { client, requests } = apolloClient(stack);
    const found = await page(client, { first: 3 });
    const { node } = found.edges[2]!;
    const byNumber = await client.query({
      query: CompanyByNumberDocument,
      variables: { jurisdiction: node.jurisdiction, companyNumber: node.companyNumber },
    });
    expect(byNumber.data!.company).toEqual(node);
    const byId = await client.query({ query: NodeByIdDocument, variables: { id: node.id } });
    expect(byId.data!.node).toMatchObject({ id: node.id, name: node.name });
    expect(requests).toHaveLength(1);

    // A company the cache does not hold is asked for.
    const other = await client.query({ query: CompanyByNumberDocument, variables: { jurisdiction: 'GB', companyNumber: '09876543' } });
    expect(other.data!.company?.name).toBe('Zebra Quantum Fisheries Ltd');
    expect(requests).toHaveLength(2);
  });
});
