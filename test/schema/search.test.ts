import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixtureCompanies } from '../../src/lookup-service/index.js';
import { DashboardSearchDocument, SearchCompaniesDocument } from '../generated/graphql.js';
import { expectedCompany } from '../support/expected.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());
beforeEach(() => stack.lookup.counters.reset());

describe('searchCompanies', () => {
  it('answers a search with the whole company: address, previous names and avatar', async () => {
    const company = fixtureCompanies.uniqueName;
    const askedAt = Date.now();
    const { status, body } = await stack.execute(SearchCompaniesDocument, { q: 'Zebra Quantum', jurisdiction: 'GB' });
    const answeredAt = Date.now();

    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const connection = body.data!.searchCompanies;
    expect(connection).toEqual({
      totalCount: 1,
      reachableCount: 1,
      fetchedAt: expect.any(String),
      stale: false,
      pageInfo: {
        hasNextPage: false,
        hasPreviousPage: false,
        startCursor: connection.edges[0]!.cursor,
        endCursor: connection.edges[0]!.cursor,
      },
      edges: [{ cursor: expect.any(String), node: expectedCompany(company, 'GB') }],
    });
    // Fetched for this request: however long it took.
    expect(Date.parse(connection.fetchedAt)).toBeGreaterThanOrEqual(askedAt);
    expect(Date.parse(connection.fetchedAt)).toBeLessThanOrEqual(answeredAt);
  });

  it('serves previous names with their dates', async () => {
    const company = fixtureCompanies.withPreviousNames;
    const { body } = await stack.execute(SearchCompaniesDocument, { q: company.name, jurisdiction: 'GB' });
    const node = body.data!.searchCompanies.edges[0]!.node;
    expect(node).toEqual(expectedCompany(company, 'GB'));
    expect(node.previousNames.length).toBeGreaterThan(0);
  });

  it('gives a country name its ISO code and leaves a missing address null', async () => {
    const partial = await stack.execute(SearchCompaniesDocument, {
      q: fixtureCompanies.partialAddress.name,
      jurisdiction: 'GB',
    });
    expect(partial.body.data!.searchCompanies.edges[0]!.node).toEqual(expectedCompany(fixtureCompanies.partialAddress, 'GB'));
    expect(partial.body.data!.searchCompanies.edges[0]!.node.address?.country).toBe('England');

    const missing = await stack.execute(SearchCompaniesDocument, {
      q: fixtureCompanies.nullAddress.name,
      jurisdiction: 'GB',
    });
    const node = missing.body.data!.searchCompanies.edges[0]!.node;
    expect(node.address).toBeNull();
    expect(node.avatar).toEqual({ image: null, initials: 'D' });
  });

  it('accepts a lower-case jurisdiction and normalizes whitespace into one cached query', async () => {
    const first = await stack.execute(DashboardSearchDocument, { q: 'holdings', jurisdiction: 'gb' });
    const second = await stack.execute(DashboardSearchDocument, { q: '  holdings ', jurisdiction: 'GB' });
    expect(first.body.errors).toBeUndefined();
    expect(second.body).toEqual(first.body);
    expect(first.body.data!.searchCompanies.nodes).toHaveLength(50);
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });

  it('lets a dashboard select only names and statuses', async () => {
    const { body } = await stack.execute(DashboardSearchDocument, { q: 'Thistle Glen Whisky', jurisdiction: 'GB' });
    expect(body.data!.searchCompanies.nodes[0]).toEqual({
      name: fixtureCompanies.scottish.name,
      companyNumber: 'SC123456',
      status: fixtureCompanies.scottish.status,
    });
  });

  it('answers an empty connection for a jurisdiction without data', async () => {
    const { body } = await stack.execute(SearchCompaniesDocument, { q: 'holdings', jurisdiction: 'FR' });
    expect(body.data!.searchCompanies).toMatchObject({
      totalCount: 0,
      reachableCount: 0,
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  it('also answers GraphQL over GET', async () => {
    const query = '{ searchCompanies(q: "Zebra Quantum", jurisdiction: "GB") { totalCount nodes { companyNumber } } }';
    const response = await stack.get(`/graphql?query=${encodeURIComponent(query)}`, { accept: 'application/json' });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({
      data: { searchCompanies: { totalCount: 1, nodes: [{ companyNumber: fixtureCompanies.uniqueName.companyNumber }] } },
    });
  });
});
