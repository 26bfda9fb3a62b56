import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allFixtureCompanies, fixtureCompanies, fixtureCompaniesByStatus, type CompanyResult } from '../../src/lookup-service/index.js';
import { SearchCompaniesDocument, type CompanyDetailsFragment } from '../generated/graphql.js';
import { manualClock } from '../support/clock.js';
import { expectedCompany } from '../support/expected.js';
import { startStack, type Stack } from '../support/stack.js';

/** A result as the test reshapes it on its way out of the lookup service. */
// biome-ignore lint/suspicious/noExplicitAny: the tests write malformed values at any depth of a result; a typed view would need a cast at every step.
type Json = Record<string, any>;

/** The ten "Ferncastle …" fixtures, in the order the lookup service ranks them (all name-prefix matches: by name). */
const FERNCASTLE: readonly CompanyResult[] = Object.values(fixtureCompaniesByStatus).sort((a, b) =>
  a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1,
);
/** The result the faults are injected into, in the middle of its siblings. */
const TARGET = fixtureCompaniesByStatus.INACTIVE;
const TARGET_INDEX = FERNCASTLE.indexOf(TARGET);
const MALFORMED_FIELDS_LOG = 'Upstream sent malformed fields; read them as null';

let stack: Stack;
/** Moved past the cache's lifetime before each test, so every test's search reaches the lookup service and sees its own mapResults. */
const clock = manualClock();

beforeAll(async () => {
  stack = await startStack({
    clock,
    lookup: { companies: allFixtureCompanies },
    gateway: { cacheTtlMs: 1, cacheStaleWhileRevalidateMs: 0 },
  });
});
afterAll(() => stack?.close());
beforeEach(() => {
  clock.advance(2);
  stack.lookup.counters.reset();
  stack.logs.length = 0;
});
afterEach(() => stack.lookup.knobs.clearFaults());

/** Applies `change` to the results with these numbers as the lookup service sends them. */
function changeResults(changes: Record<string, (result: Json) => unknown>): void {
  stack.lookup.knobs.mapResults = (results) =>
    results.map((result) => {
      const change = changes[result.companyNumber];
      return change === undefined ? result : change(result as unknown as Json);
    });
}

async function search(q: string) {
  const { status, body } = await stack.execute(SearchCompaniesDocument, { q, jurisdiction: 'GB', pageSize: 50 });
  expect(status).toBe(200);
  expect(stack.lookup.counters.searchesAnswered).toBe(1);
  return { nodes: body.data!.searchCompanies.edges.map((edge) => edge.node), errors: body.errors };
}

/** The nodes of a search that the upstream answered without a fault. */
async function searchNodes(q: string): Promise<CompanyDetailsFragment[]> {
  const { nodes, errors } = await search(q);
  expect(errors).toBeUndefined();
  return nodes;
}

/** The partial error for a field of the node at `index` that reads as null because `upstreamField` was unreadable. */
function invalidField(index: number, fieldPath: (string | number)[], upstreamField: string, consequence = 'it reads as null') {
  return {
    message: `The company lookup service sent an unreadable ${upstreamField}; ${consequence}`,
    locations: [expect.objectContaining({ line: expect.any(Number) })],
    path: ['searchCompanies', 'edges', index, 'node', ...fieldPath],
    extensions: { requestId: expect.any(String), code: 'UPSTREAM_INVALID_FIELD', upstreamField },
  };
}

/** Every Ferncastle company as the gateway presents it, with `patch` applied to the target. */
function expectedFerncastle(patch: (expected: CompanyDetailsFragment) => CompanyDetailsFragment = (same) => same) {
  return FERNCASTLE.map((company) => {
    const expected = expectedCompany(company, 'GB');
    return company === TARGET ? patch(expected) : expected;
  });
}

/** The field paths of the gateway's "malformed fields" warnings since the test began. */
function loggedMalformedFields(): string[] {
  return stack.logs
    .map((line) => JSON.parse(line) as { msg: string; fields?: string[] })
    .filter((entry) => entry.msg === MALFORMED_FIELDS_LOG)
    .flatMap((entry) => entry.fields ?? []);
}

describe('a malformed field becomes null on its own', () => {
  it('has the intact data set as its baseline', async () => {
    expect(await searchNodes('ferncastle')).toEqual(expectedFerncastle());
    expect(loggedMalformedFields()).toEqual([]);
  });

  it.each<[string, string, (result: Json) => void, (expected: CompanyDetailsFragment) => CompanyDetailsFragment, (string | number)[][]]>([
    [
      'incorporatedDate',
      'not a date',
      (result) => (result.incorporatedDate = 'not a date'),
      (expected) => ({ ...expected, incorporatedDate: null }),
      [['incorporatedDate']],
    ],
    [
      'isPlatformMember',
      'yes',
      (result) => (result.isPlatformMember = 'yes'),
      (expected) => ({ ...expected, isPlatformMember: null }),
      [['isPlatformMember']],
    ],
    [
      'avatar.image',
      'not a url',
      (result) => (result.avatar.image = 'not a url'),
      (expected) => ({ ...expected, avatar: { image: null, initials: 'F' } }),
      [['avatar', 'image']],
    ],
    [
      'avatar.image',
      'javascript: URL',
      (result) => (result.avatar.image = 'javascript:alert(1)'),
      (expected) => ({ ...expected, avatar: { image: null, initials: 'F' } }),
      [['avatar', 'image']],
    ],
    [
      'addressStructured.latitude',
      'north',
      (result) => (result.addressStructured.latitude = 'north'),
      (expected) => ({ ...expected, address: { ...expected.address!, latitude: null } }),
      [['address', 'latitude']],
    ],
    [
      'addressStructured.longitude',
      'out of range',
      (result) => (result.addressStructured.longitude = 512),
      (expected) => ({ ...expected, address: { ...expected.address!, longitude: null } }),
      [['address', 'longitude']],
    ],
    [
      'addressStructured.postcode',
      'an object',
      (result) => (result.addressStructured.postcode = { outward: 'SW1H' }),
      (expected) => ({ ...expected, address: { ...expected.address!, postcode: null } }),
      [['address', 'postcode']],
    ],
    [
      'address',
      'a number',
      (result) => (result.address = 42),
      (expected) => ({ ...expected, address: { ...expected.address!, formatted: null } }),
      [['address', 'formatted']],
    ],
    [
      'status',
      'a number',
      (result) => (result.status = 7),
      (expected) => ({ ...expected, status: null, statusText: null }),
      [['status'], ['statusText']],
    ],
    [
      'previousNames[0].startDate',
      '2020-13-45',
      (result) =>
        (result.previousNames = [
          { name: 'Ferncastle Sleeping Ltd', startDate: '2020-13-45', endDate: '2021-02-03' },
          { name: 'Ferncastle Founding Ltd', startDate: '2011-01-02', endDate: '2020-01-01' },
        ]),
      (expected) => ({
        ...expected,
        previousNames: [
          { name: 'Ferncastle Sleeping Ltd', startDate: null, endDate: '2021-02-03' },
          { name: 'Ferncastle Founding Ltd', startDate: '2011-01-02', endDate: '2020-01-01' },
        ],
      }),
      [['previousNames', 0, 'startDate']],
    ],
  ])('%s of the wrong type (%s)', async (path, _example, inject, patch, fieldPaths) => {
    changeResults({
      [TARGET.companyNumber]: (result) => {
        inject(result);
        return result;
      },
    });
    const { nodes, errors } = await search('ferncastle');
    expect(nodes).toEqual(expectedFerncastle(patch));
    expect(errors).toEqual(fieldPaths.map((fieldPath) => invalidField(TARGET_INDEX, fieldPath, path)));
    expect(loggedMalformedFields()).toEqual([`results[${TARGET_INDEX}].${path}`]);
  });

  it('an impossible previous-name date of a real company', async () => {
    const company = fixtureCompanies.withPreviousNames;
    changeResults({
      [company.companyNumber]: (result) => {
        result.previousNames[0].startDate = '2020-13-45';
        return result;
      },
    });
    const expected = expectedCompany(company, 'GB');
    const { nodes, errors } = await search('Marlowe Kestrel');
    expect(nodes).toEqual([
      {
        ...expected,
        previousNames: [{ ...expected.previousNames[0]!, startDate: null }, expected.previousNames[1]!],
      },
    ]);
    expect(errors).toEqual([invalidField(0, ['previousNames', 0, 'startDate'], 'previousNames[0].startDate')]);
    expect(loggedMalformedFields()).toEqual(['results[0].previousNames[0].startDate']);
  });

  it('all at once in one result, its siblings untouched', async () => {
    changeResults({
      [TARGET.companyNumber]: (result) => ({
        ...result,
        incorporatedDate: 'not a date',
        isPlatformMember: 'yes',
        avatar: { ...result.avatar, image: 'not a url' },
        addressStructured: { ...result.addressStructured, latitude: 'north', city: 12 },
      }),
    });
    const { nodes, errors } = await search('ferncastle');
    expect(nodes).toEqual(
      expectedFerncastle((expected) => ({
        ...expected,
        incorporatedDate: null,
        isPlatformMember: null,
        avatar: { image: null, initials: 'F' },
        address: { ...expected.address!, latitude: null, city: null },
      })),
    );
    expect(errors).toHaveLength(5);
    expect(errors).toEqual(
      expect.arrayContaining([
        invalidField(TARGET_INDEX, ['incorporatedDate'], 'incorporatedDate'),
        invalidField(TARGET_INDEX, ['isPlatformMember'], 'isPlatformMember'),
        invalidField(TARGET_INDEX, ['avatar', 'image'], 'avatar.image'),
        invalidField(TARGET_INDEX, ['address', 'latitude'], 'addressStructured.latitude'),
        invalidField(TARGET_INDEX, ['address', 'city'], 'addressStructured.city'),
      ]),
    );
  });
});

describe('a malformed object or list becomes null or shorter on its own', () => {
  it('reads an addressStructured that is not an object as unknown parts, keeping the one-line address', async () => {
    changeResults({ [TARGET.companyNumber]: (result) => ({ ...result, addressStructured: 'SW1H 0BD' }) });
    const { nodes, errors } = await search('ferncastle');
    const parts = ['streetLine1', 'streetLine2', 'city', 'region', 'postcode', 'country', 'latitude', 'longitude'] as const;
    expect(nodes).toEqual(
      expectedFerncastle((expected) => ({
        ...expected,
        address: { ...expected.address!, ...Object.fromEntries(parts.map((part) => [part, null])), countryCode: null },
      })),
    );
    // countryCode is derived from country, so it carries the error too; errors come in selection order.
    const selected = ['streetLine1', 'streetLine2', 'city', 'region', 'postcode', 'country', 'countryCode', 'latitude', 'longitude'];
    expect(errors).toEqual(selected.map((part) => invalidField(TARGET_INDEX, ['address', part], 'addressStructured')));
  });

  it('gives a null address when neither form of it can be read', async () => {
    changeResults({ [TARGET.companyNumber]: (result) => ({ ...result, address: 42, addressStructured: null }) });
    const { nodes, errors } = await search('ferncastle');
    expect(nodes).toEqual(expectedFerncastle((expected) => ({ ...expected, address: null })));
    expect(errors).toEqual([invalidField(TARGET_INDEX, ['address'], 'address')]);
  });

  it('gives a null avatar when it is not an object', async () => {
    changeResults({ [TARGET.companyNumber]: (result) => ({ ...result, avatar: 'F' }) });
    const { nodes, errors } = await search('ferncastle');
    expect(nodes).toEqual(expectedFerncastle((expected) => ({ ...expected, avatar: null })));
    expect(errors).toEqual([invalidField(TARGET_INDEX, ['avatar'], 'avatar')]);
  });

  it('gives an empty list of previous names when it is not a list', async () => {
    changeResults({ [TARGET.companyNumber]: (result) => ({ ...result, previousNames: 'Ferncastle Old Ltd' }) });
    const { nodes, errors } = await search('ferncastle');
    expect(nodes).toEqual(expectedFerncastle((expected) => ({ ...expected, previousNames: [] })));
    expect(errors).toEqual([invalidField(TARGET_INDEX, ['previousNames'], 'previousNames', 'the list leaves out what could not be read')]);
  });

  it('leaves a previous name without a name out of the list', async () => {
    changeResults({
      [TARGET.companyNumber]: (result) => ({
        ...result,
        previousNames: [{ startDate: '2011-01-02' }, { name: 'Ferncastle Founding Ltd', startDate: '2011-01-02', endDate: '2020-01-01' }],
      }),
    });
    const { nodes, errors } = await search('ferncastle');
    expect(nodes).toEqual(
      expectedFerncastle((expected) => ({
        ...expected,
        previousNames: [{ name: 'Ferncastle Founding Ltd', startDate: '2011-01-02', endDate: '2020-01-01' }],
      })),
    );
    expect(errors).toEqual([
      invalidField(TARGET_INDEX, ['previousNames'], 'previousNames[0]', 'the list leaves out what could not be read'),
    ]);
  });
});

describe('results the gateway cannot identify', () => {
  it('leaves out a result without name or companyNumber, and keeps the others', async () => {
    const dropped = [
      fixtureCompaniesByStatus.INACTIVE,
      fixtureCompaniesByStatus.IN_ADMINISTRATION,
      fixtureCompaniesByStatus.REMOVED,
      fixtureCompaniesByStatus.OVERSEAS_ENTITY,
      fixtureCompaniesByStatus.DISSOLVED,
    ];
    changeResults({
      [fixtureCompaniesByStatus.INACTIVE.companyNumber]: ({ name: _name, ...rest }) => rest,
      [fixtureCompaniesByStatus.IN_ADMINISTRATION.companyNumber]: ({ companyNumber: _number, ...rest }) => rest,
      [fixtureCompaniesByStatus.REMOVED.companyNumber]: (result) => ({ ...result, name: '   ' }),
      [fixtureCompaniesByStatus.OVERSEAS_ENTITY.companyNumber]: (result) => ({ ...result, companyNumber: 12345 }),
      [fixtureCompaniesByStatus.DISSOLVED.companyNumber]: () => null,
    });
    const { nodes, errors } = await search('ferncastle');
    expect(nodes).toEqual(FERNCASTLE.filter((company) => !dropped.includes(company)).map((company) => expectedCompany(company, 'GB')));
    const droppedPositions = dropped.map((company) => FERNCASTLE.indexOf(company)).sort((a, b) => a - b);
    expect(errors).toEqual(
      droppedPositions.map((position) => ({
        message: `The company lookup service sent result ${position + 1} of this search without a readable name or company number; it is left out`,
        locations: [expect.objectContaining({ line: expect.any(Number) })],
        path: ['searchCompanies'],
        extensions: { requestId: expect.any(String), code: 'UPSTREAM_INVALID_FIELD', upstreamField: `results[${position}]` },
      })),
    );
  });
});

describe('unknown and unexpected values', () => {
  it('ignores unknown extra fields', async () => {
    stack.lookup.knobs.mapResults = (results) =>
      results.map((result) => ({
        ...result,
        vatNumber: 'GB123456789',
        officers: [{ name: 'A. Director' }],
        addressStructured: result.addressStructured && { ...result.addressStructured, what3words: 'index.home.raft' },
        avatar: { ...result.avatar, colour: '#336699' },
      }));
    expect(await searchNodes('ferncastle')).toEqual(expectedFerncastle());
    expect(loggedMalformedFields()).toEqual([]);
  });

  it('gives a status it does not know as UNKNOWN, with the value itself in statusText', async () => {
    changeResults({ [TARGET.companyNumber]: (result) => ({ ...result, status: 'SOMETHING_NEW' }) });
    expect(await searchNodes('ferncastle')).toEqual(
      expectedFerncastle((expected) => ({ ...expected, status: 'UNKNOWN', statusText: 'SOMETHING_NEW' })),
    );
  });

  it('reads a status written in words, ignoring case and separators', async () => {
    changeResults({
      [TARGET.companyNumber]: (result) => ({ ...result, status: 'Actively trading' }),
      [fixtureCompaniesByStatus.IN_LIQUIDATION.companyNumber]: (result) => ({ ...result, status: 'in-liquidation' }),
    });
    const nodes = await searchNodes('ferncastle');
    expect(nodes).toEqual(
      FERNCASTLE.map((company) => {
        const expected = expectedCompany(company, 'GB');
        if (company === TARGET) return { ...expected, status: 'ACTIVELY_TRADING', statusText: 'Actively trading' };
        if (company === fixtureCompaniesByStatus.IN_LIQUIDATION) {
          return { ...expected, status: 'IN_LIQUIDATION', statusText: 'in-liquidation' };
        }
        return expected;
      }),
    );
  });

  it('gives a country written as a name its ISO code, and null when it is not a country', async () => {
    const countries: Record<string, [string, string | null]> = {
      [fixtureCompaniesByStatus.ACTIVELY_TRADING.companyNumber]: ['United Kingdom', 'GB'],
      [fixtureCompaniesByStatus.INACTIVE.companyNumber]: ['Ireland', 'IE'],
      [fixtureCompaniesByStatus.DISSOLVED.companyNumber]: ['Wales', 'GB'],
      [fixtureCompaniesByStatus.REMOVED.companyNumber]: ['Atlantis', null],
    };
    changeResults(
      Object.fromEntries(
        Object.entries(countries).map(([number, [country]]) => [
          number,
          (result: Json) => ({ ...result, addressStructured: { ...result.addressStructured, country } }),
        ]),
      ),
    );
    const nodes = await searchNodes('ferncastle');
    expect(nodes).toEqual(
      FERNCASTLE.map((company) => {
        const expected = expectedCompany(company, 'GB');
        const given = countries[company.companyNumber];
        if (given === undefined) return expected;
        const [country, countryCode] = given;
        return { ...expected, address: { ...expected.address!, country, countryCode } };
      }),
    );
    expect(loggedMalformedFields()).toEqual([]);
  });
});
