import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { parse } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allFixtureCompanies, fixtureCompanies, type CompanyResult } from '../../src/lookup-service/index.js';
import { CompanyByNumberDocument, NodeByIdDocument, SearchCompaniesDocument } from '../generated/graphql.js';
import { manualClock } from '../support/clock.js';
import { expectedCompany } from '../support/expected.js';
import { startStack, type Stack } from '../support/stack.js';
import { upstreamSearches } from '../support/upstream-calls.js';

/** A GB company with the number of the IE fixture `sameNameIe`: numbers are unique only per jurisdiction. */
const gbTwinOfIrishNumber: CompanyResult = {
  ...fixtureCompanies.sameNameGb,
  name: 'Shannon Harbour Twin Ltd',
  companyNumber: fixtureCompanies.sameNameIe.companyNumber,
  avatar: { image: null, initials: 'S' },
};

/** Found by a search for "0987654", a prefix of the number of `uniqueName`: a partial match only. */
const numberInName: CompanyResult = {
  ...fixtureCompanies.ltd,
  name: 'Unit 0987654 Storage Ltd',
  companyNumber: '12121212',
  avatar: { image: null, initials: 'U' },
};

let stack: Stack;
/** Moved past the windows' lifetime before each test: every upstream search counted here comes from the test at hand. */
const clock = manualClock();

beforeAll(async () => {
  stack = await startStack({
    clock,
    lookup: { companies: [...allFixtureCompanies, gbTwinOfIrishNumber, numberInName] },
    gateway: { cacheTtlMs: 1, cacheStaleWhileRevalidateMs: 0 },
  });
});
afterAll(() => stack?.close());
beforeEach(() => {
  clock.advance(2);
  stack.lookup.counters.reset();
});

function globalId(company: CompanyResult): string {
  return encodeGlobalID('Company', `${company.jurisdiction}:${company.companyNumber}`);
}

interface Summary {
  id: string;
  name: string;
  companyNumber: string;
  jurisdiction: string;
}

function summaryOf(company: CompanyResult): Summary {
  return { id: globalId(company), name: company.name, companyNumber: company.companyNumber, jurisdiction: company.jurisdiction };
}

describe('company(jurisdiction, companyNumber)', () => {
  it('returns the company with exactly that number, whole', async () => {
    const gb = await stack.execute(CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: '09876543' });
    expect(gb).toEqual({ status: 200, body: { data: { company: expectedCompany(fixtureCompanies.uniqueName, 'GB') } } });

    const ie = await stack.execute(CompanyByNumberDocument, { jurisdiction: 'IE', companyNumber: '123456' });
    expect(ie).toEqual({ status: 200, body: { data: { company: expectedCompany(fixtureCompanies.irishPlc, 'IE') } } });

    expect(upstreamSearches(stack, 'sorted')).toEqual([
      ['GB', '09876543'],
      ['IE', '123456'],
    ]);
  });

  it('returns null, without an error, for an unknown number', async () => {
    const { status, body } = await stack.execute(CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: '99999999' });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { company: null } });
    expect(upstreamSearches(stack, 'sorted')).toEqual([['GB', '99999999']]);
  });

  it('ignores the case of the number and surrounding whitespace', async () => {
    for (const companyNumber of ['sc123456', 'Sc123456', '  SC123456 ']) {
      const { body } = await stack.execute(CompanyByNumberDocument, { jurisdiction: 'gb', companyNumber });
      expect(body).toEqual({ data: { company: expectedCompany(fixtureCompanies.scottish, 'GB') } });
    }
    const { body } = await stack.execute(CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: 'ni654321' });
    expect(body).toEqual({ data: { company: expectedCompany(fixtureCompanies.northernIrish, 'GB') } });
  });

  it('does not return a company that the upstream found by a partial match', async () => {
    // The upstream does return a company for "0987654": one whose name contains that word.
    const search = await stack.execute(SearchCompaniesDocument, { q: '0987654', jurisdiction: 'GB' });
    expect(search.body.data!.searchCompanies.edges.map((edge) => edge.node)).toEqual([expectedCompany(numberInName, 'GB')]);

    for (const companyNumber of ['0987654', '098765', '9876543', 'Zebra Quantum', '12121']) {
      const { body } = await stack.execute(CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber });
      expect(body, companyNumber).toEqual({ data: { company: null } });
    }
    // Nor one of another jurisdiction that has the number.
    const { body } = await stack.execute(CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: '123456' });
    expect(body).toEqual({ data: { company: null } });
  });

  it('does not return a result the upstream labels with another jurisdiction', async () => {
    try {
      stack.lookup.knobs.mapResults = (results) =>
        results.map((result) => (result.companyNumber === '09876543' ? { ...result, jurisdiction: 'IE' } : result));
      const { body } = await stack.execute(CompanyByNumberDocument, { jurisdiction: 'GB', companyNumber: '09876543' });
      expect(body).toEqual({ data: { company: null } });
      expect(upstreamSearches(stack, 'sorted')).toEqual([['GB', '09876543']]);
    } finally {
      stack.lookup.knobs.clearFaults();
    }
  });

  it('tells apart the same number in GB and IE: different companies, different ids', async () => {
    const document = parse(/* GraphQL */ `
      query Twins($number: String!) {
        gb: company(jurisdiction: "GB", companyNumber: $number) { id name companyNumber jurisdiction }
        ie: company(jurisdiction: "IE", companyNumber: $number) { id name companyNumber jurisdiction }
      }
    `) as TypedDocumentNode<{ gb: Summary | null; ie: Summary | null }, { number: string }>;
    const { body } = await stack.execute(document, { number: '512345' });
    expect(body).toEqual({
      data: { gb: summaryOf(gbTwinOfIrishNumber), ie: summaryOf(fixtureCompanies.sameNameIe) },
    });
    expect(body.data!.gb!.id).not.toBe(body.data!.ie!.id);
    expect(upstreamSearches(stack, 'sorted')).toEqual([
      ['GB', '512345'],
      ['IE', '512345'],
    ]);

    // Each id leads back to its own company.
    for (const company of [gbTwinOfIrishNumber, fixtureCompanies.sameNameIe]) {
      const node = await stack.execute(NodeByIdDocument, { id: globalId(company) });
      expect(node.body).toEqual({ data: { node: summaryOf(company) } });
    }
  });
});

describe('node(id)', () => {
  it('fetches a search result again by its id', async () => {
    for (const [company, q] of [
      [fixtureCompanies.withPreviousNames, 'Marlowe Kestrel'],
      [fixtureCompanies.irishLanguage, 'Bláth na Mara'],
    ] as const) {
      stack.lookup.counters.reset();
      const search = await stack.execute(SearchCompaniesDocument, { q, jurisdiction: company.jurisdiction });
      const [edge] = search.body.data!.searchCompanies.edges;
      expect(edge!.node.id).toBe(globalId(company));

      const { status, body } = await stack.execute(NodeByIdDocument, { id: edge!.node.id });
      expect(status).toBe(200);
      expect(body).toEqual({ data: { node: summaryOf(company) } });
      expect(upstreamSearches(stack, 'sorted')).toEqual(
        [
          [company.jurisdiction, q],
          [company.jurisdiction, company.companyNumber],
        ].sort((a, b) => a.join(' ').localeCompare(b.join(' '))),
      );
    }
  });

  it('makes one upstream search for several company and node fields of the same company in one request', async () => {
    const company = fixtureCompanies.uniqueName;
    const document = parse(/* GraphQL */ `
      query Same($id: ID!) {
        a: company(jurisdiction: "GB", companyNumber: "09876543") { id name }
        b: company(jurisdiction: "gb", companyNumber: " 09876543 ") { companyNumber isPlatformMember }
        c: node(id: $id) { id ... on Company { name jurisdiction } }
        d: node(id: $id) { id }
        e: company(jurisdiction: "GB", companyNumber: "09876543") { address { postcode } }
      }
    `) as TypedDocumentNode<Record<string, unknown>, { id: string }>;
    const { body } = await stack.execute(document, { id: globalId(company) });
    expect(body).toEqual({
      data: {
        a: { id: globalId(company), name: company.name },
        b: { companyNumber: '09876543', isPlatformMember: true },
        c: { id: globalId(company), name: company.name, jurisdiction: 'GB' },
        d: { id: globalId(company) },
        e: { address: { postcode: 'DN31 3NW' } },
      },
    });
    expect(stack.lookup.counters.searchRequests).toBe(1);
    expect(upstreamSearches(stack, 'sorted')).toEqual([['GB', '09876543']]);
  });

  it('makes one upstream search per company when one request asks for several', async () => {
    const document = parse(/* GraphQL */ `
      query Several($id: ID!) {
        a: company(jurisdiction: "GB", companyNumber: "09876543") { companyNumber }
        b: company(jurisdiction: "GB", companyNumber: "SC123456") { companyNumber }
        c: company(jurisdiction: "IE", companyNumber: "123456") { companyNumber }
        d: node(id: $id) { ... on Company { companyNumber } }
        e: company(jurisdiction: "GB", companyNumber: "SC123456") { name }
      }
    `) as TypedDocumentNode<Record<string, unknown>, { id: string }>;
    const { body } = await stack.execute(document, { id: globalId(fixtureCompanies.withPreviousNames) });
    expect(body).toEqual({
      data: {
        a: { companyNumber: '09876543' },
        b: { companyNumber: 'SC123456' },
        c: { companyNumber: '123456' },
        d: { companyNumber: '07654321' },
        e: { name: fixtureCompanies.scottish.name },
      },
    });
    expect(upstreamSearches(stack, 'sorted')).toEqual([
      ['GB', '07654321'],
      ['GB', '09876543'],
      ['GB', 'SC123456'],
      ['IE', '123456'],
    ]);
  });

  it.each([
    ['not base64 of anything', 'not-a-global-id'],
    ['empty', ''],
    ['without a type name separator', Buffer.from('Company').toString('base64')],
    ['with an empty local id', encodeGlobalID('Company', '')],
    ['of a type this schema does not have', encodeGlobalID('Widget', 'GB:09876543')],
    ['with a local id that is not JURISDICTION:NUMBER', encodeGlobalID('Company', 'nonsense')],
    ['with an empty company number', encodeGlobalID('Company', 'GB:')],
    ['with another separator in its local id', encodeGlobalID('Company', 'GB-09876543')],
  ])('refuses a malformed id (%s) with BAD_USER_INPUT naming id, without an upstream call', async (_label, id) => {
    const { status, body } = await stack.execute(NodeByIdDocument, { id });
    expect(status).toBe(200);
    expect(body).toEqual({
      data: { node: null },
      errors: [
        {
          message: expect.stringMatching(/^id: /),
          locations: expect.any(Array),
          path: ['node'],
          extensions: { requestId: expect.any(String), code: 'BAD_USER_INPUT', argument: 'id' },
        },
      ],
    });
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });
});
