import { describe, expect, it } from 'vitest';
import {
  allFixtureCompanies,
  COMPANY_STATUSES,
  companiesPerJurisdiction,
  createDataSet,
  defaultDataSet,
  fixtureCompanies,
  fixtureCompaniesByStatus,
  normaliseName,
} from '../../src/lookup-service/index.js';
import type { CompanyResult } from '../../src/lookup-service/index.js';
import { RandomStreams } from '../../src/lookup-service/prng.js';

const companies = defaultDataSet();
const gb = companies.filter((company) => company.jurisdiction === 'GB');
const ie = companies.filter((company) => company.jurisdiction === 'IE');
const fixtures: ReadonlySet<CompanyResult> = new Set(allFixtureCompanies);
const generated = companies.filter((company) => !fixtures.has(company));

function share(predicate: (company: CompanyResult) => boolean): number {
  return companies.filter(predicate).length / companies.length;
}

describe('the generated data set', () => {
  it('has at least 20,000 companies, 15,000 in GB and 6,000 in IE, and nothing else', () => {
    expect(companies.length).toBeGreaterThanOrEqual(20_000);
    expect(gb.length).toBeGreaterThanOrEqual(15_000);
    expect(ie.length).toBeGreaterThanOrEqual(6_000);
    expect(gb.length + ie.length).toBe(companies.length);
  });

  it('is the same on every call, and different for another seed', () => {
    const again = createDataSet();
    expect(again).not.toBe(companies);
    expect(again).toEqual(companies);
    const other = createDataSet({ seed: 7, gbCount: 50, ieCount: 50 });
    expect(other).toEqual(createDataSet({ seed: 7, gbCount: 50, ieCount: 50 }));
    expect(other.map((company) => company.name)).not.toEqual(
      createDataSet({ seed: 8, gbCount: 50, ieCount: 50 }).map((company) => company.name),
    );
  });

  it('draws each field from a stream of its own, so a field added later leaves the others as they were', () => {
    const draws = (streams: RandomStreams, alsoDraw?: string) =>
      Array.from({ length: 100 }, () => {
        if (alsoDraw) streams.for(alsoDraw).next();
        return streams.for('GB/name').next();
      });
    const alone = draws(new RandomStreams(20_250_630));
    expect(draws(new RandomStreams(20_250_630), 'GB/website')).toEqual(alone);
    expect(draws(new RandomStreams(20_250_631))).not.toEqual(alone);
    expect(draws(new RandomStreams(20_250_630), 'GB/name')).not.toEqual(alone);
  });

  it('generates the requested counts besides the fixtures', () => {
    const small = createDataSet({ gbCount: 10, ieCount: 5 });
    const fixturesGb = allFixtureCompanies.filter((company) => company.jurisdiction === 'GB').length;
    const fixturesIe = allFixtureCompanies.length - fixturesGb;
    expect(small.filter((company) => company.jurisdiction === 'GB')).toHaveLength(10 + fixturesGb);
    expect(small.filter((company) => company.jurisdiction === 'IE')).toHaveLength(5 + fixturesIe);
  });

  it('counts its companies per jurisdiction without generating them, as generation gives them', () => {
    const countsOf = (set: readonly CompanyResult[]) => {
      const counts: Record<string, number> = {};
      for (const { jurisdiction } of set) counts[jurisdiction] = (counts[jurisdiction] ?? 0) + 1;
      return counts;
    };
    expect(companiesPerJurisdiction()).toEqual(countsOf(companies));
    expect(Object.keys(companiesPerJurisdiction())).toEqual(Object.keys(countsOf(companies)));
    expect(companiesPerJurisdiction({ gbCount: 10, ieCount: 0 })).toEqual(countsOf(createDataSet({ gbCount: 10, ieCount: 0 })));
    expect(() => companiesPerJurisdiction({ gbCount: -1 })).toThrow('gbCount must be an integer from 0 to 200000, got -1');
  });

  it('rejects invalid options with a message naming the option', () => {
    expect(() => createDataSet({ gbCount: -1 })).toThrow('gbCount must be an integer from 0 to 200000, got -1');
    expect(() => createDataSet({ ieCount: 1.5 })).toThrow('ieCount must be an integer from 0 to 200000, got 1.5');
    expect(() => createDataSet({ seed: Number.NaN })).toThrow('seed must be an integer, got NaN');
  });

  it('is frozen through and through, generated companies included, so no user can change it for the others', () => {
    const renamed = generated.find((company) => company.previousNames.length > 0 && company.addressStructured !== null)!;
    const parts = [companies, renamed, renamed.avatar, renamed.addressStructured, renamed.previousNames, renamed.previousNames[0]];
    expect(parts.map((part) => Object.isFrozen(part))).toEqual(parts.map(() => true));
  });

  it('generates every status, ACTIVELY_TRADING the most common', () => {
    const counts = new Map<string, number>();
    for (const company of generated) counts.set(company.status, (counts.get(company.status) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([...COMPANY_STATUSES].sort());
    const [mostCommon] = [...counts].sort((a, b) => b[1] - a[1]);
    expect(mostCommon?.[0]).toBe('ACTIVELY_TRADING');
  });

  it('gives overseas statuses only to overseas (FC) companies', () => {
    const overseas = companies.filter((company) => company.status === 'OVERSEAS_ENTITY' || company.status === 'CLOSED_OVERSEAS_ENTITY');
    expect(overseas.length).toBeGreaterThan(0);
    expect(overseas.every((company) => company.companyNumber.startsWith('FC'))).toBe(true);
  });

  it('has numbers in the registries formats, unique within a jurisdiction', () => {
    expect(gb.every((company) => /^(\d{8}|(SC|NI|OC|LP|FC)\d{6})$/.test(company.companyNumber))).toBe(true);
    for (const prefix of ['SC', 'NI', 'OC', 'LP', 'FC']) {
      expect(gb.some((company) => company.companyNumber.startsWith(prefix))).toBe(true);
    }
    expect(gb.filter((company) => /^\d{8}$/.test(company.companyNumber)).length / gb.length).toBeGreaterThan(0.7);
    expect(ie.every((company) => /^[1-9]\d{4,5}$/.test(company.companyNumber))).toBe(true);
    expect(ie.some((company) => company.companyNumber.length === 5)).toBe(true);
    expect(new Set(gb.map((company) => company.companyNumber)).size).toBe(gb.length);
    expect(new Set(ie.map((company) => company.companyNumber)).size).toBe(ie.length);
  });

  it('has names unique within a jurisdiction, and deliberate near-duplicates', () => {
    for (const jurisdiction of [gb, ie]) {
      expect(new Set(jurisdiction.map((company) => company.name.toUpperCase())).size).toBe(jurisdiction.length);
    }
    const gbNames = new Set(gb.map((company) => company.name));
    expect(ie.filter((company) => gbNames.has(company.name)).length).toBeGreaterThan(50);
    const ltdLimitedPairs = gb.filter((company) => company.name.endsWith(' Ltd') && gbNames.has(company.name.replace(/ Ltd$/, ' Limited')));
    expect(ltdLimitedPairs.length).toBeGreaterThan(50);
  });

  it('has plausible names and IE forms such as Teoranta, DAC and Unlimited Company', () => {
    expect(companies.every((company) => /^\p{Lu}/u.test(company.name) && company.name.trim() === company.name)).toBe(true);
    for (const ending of [' Teoranta', ' DAC', ' Unlimited Company', ' CLG']) {
      expect(ie.some((company) => company.name.endsWith(ending))).toBe(true);
    }
    expect(gb.some((company) => company.name.endsWith(' PLC'))).toBe(true);
    expect(gb.some((company) => company.name.endsWith(' LLP'))).toBe(true);
  });

  it('has the expected shares of missing data, members and previous names', () => {
    expect(share((company) => company.address === null)).toBeCloseTo(0.05, 1);
    expect(share((company) => company.addressStructured === null)).toBeCloseTo(0.05, 1);
    expect(share((company) => company.avatar.image === null)).toBeCloseTo(0.4, 1);
    expect(share((company) => company.isPlatformMember)).toBeCloseTo(0.15, 1);
    expect(share((company) => company.previousNames.length > 0)).toBeCloseTo(0.2, 1);
    expect(share((company) => company.addressStructured?.latitude === null)).toBeGreaterThan(0.05);
    expect(share((company) => company.addressStructured?.postcode === null)).toBeGreaterThan(0.01);
    const countryNames = new Set(
      companies
        .map((company) => company.addressStructured?.country)
        .filter((country) => country !== null && country !== undefined && country.length > 2),
    );
    expect([...countryNames].sort()).toEqual(['England', 'Ireland', 'Northern Ireland', 'Scotland', 'United Kingdom', 'Wales']);
  });

  it('has the formats of the interface: dates, coordinates, avatars', () => {
    const offenders = (check: (company: CompanyResult) => boolean) => companies.filter((company) => !check(company)).slice(0, 3);
    expect(offenders((company) => /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/.test(company.incorporatedDate))).toEqual([]);
    expect(offenders((company) => new Date(company.incorporatedDate).toISOString() === company.incorporatedDate)).toEqual([]);
    expect(
      offenders((company) => company.incorporatedDate >= '1900-01-01' && company.incorporatedDate.slice(0, 10) <= '2025-06-30'),
    ).toEqual([]);
    expect(offenders((company) => /^[A-Z]$/.test(company.avatar.initials))).toEqual([]);
    expect(
      offenders(
        ({ avatar, jurisdiction, companyNumber }) =>
          avatar.image === null || avatar.image === `https://logos.example.com/${jurisdiction}/${companyNumber}.png`,
      ),
    ).toEqual([]);
    expect(
      offenders(({ addressStructured: parts }) => {
        if (parts === null || parts.latitude === null) return parts?.longitude === null || parts === null;
        return parts.longitude !== null && parts.latitude > 49 && parts.latitude < 61 && parts.longitude > -11 && parts.longitude < 2;
      }),
    ).toEqual([]);
  });

  it('dates previous names consistently: start before end, each ending where the next begins', () => {
    const withPrevious = companies.filter((company) => company.previousNames.length > 0);
    expect(withPrevious.some((company) => company.previousNames.length >= 2)).toBe(true);
    const inconsistent = withPrevious.filter((company) => {
      const chronological = [...company.previousNames].reverse();
      return (
        chronological[0]?.startDate !== company.incorporatedDate.slice(0, 10) ||
        chronological.some(
          (previous, index) =>
            !/^\d{4}-\d{2}-\d{2}$/.test(previous.startDate) ||
            !/^\d{4}-\d{2}-\d{2}$/.test(previous.endDate) ||
            previous.endDate <= previous.startDate ||
            previous.endDate > '2025-06-30' ||
            previous.endDate > (chronological[index + 1]?.startDate ?? '9999-12-31'),
        )
      );
    });
    expect(inconsistent).toEqual([]);
  });

  it('contains every fixture, and the fixtures hold what their names promise', () => {
    for (const fixture of allFixtureCompanies) expect(companies).toContain(fixture);
    for (const status of COMPANY_STATUSES) expect(fixtureCompaniesByStatus[status].status).toBe(status);
    expect(fixtureCompanies.withPreviousNames.previousNames.length).toBeGreaterThan(0);
    expect(fixtureCompanies.nullAddress).toMatchObject({ address: null, addressStructured: null, avatar: { image: null, initials: 'D' } });
    expect(fixtureCompanies.partialAddress.addressStructured).toMatchObject({ country: 'England', latitude: null, longitude: null });
    expect(fixtureCompanies.scottish.companyNumber).toBe('SC123456');
    expect(fixtureCompanies.sameNameGb.name).toBe(fixtureCompanies.sameNameIe.name);
    const fixtureNames = new Set(
      allFixtureCompanies.flatMap((fixture) =>
        [fixture.name, ...fixture.previousNames.map((previous) => previous.name)].map(normaliseName),
      ),
    );
    expect(generated.filter((company) => fixtureNames.has(normaliseName(company.name)))).toEqual([]);
  });

  it('gives the fixture company the whole wire shape of the interface', () => {
    expect(fixtureCompanies.uniqueName).toEqual({
      name: 'Zebra Quantum Fisheries Ltd',
      companyNumber: '09876543',
      jurisdiction: 'GB',
      status: 'ACTIVELY_TRADING',
      address: '14 Fish Dock Road, Unit 3, Grimsby, Lincolnshire, DN31 3NW, United Kingdom',
      addressStructured: {
        streetLine1: '14 Fish Dock Road',
        streetLine2: 'Unit 3',
        city: 'Grimsby',
        region: 'Lincolnshire',
        postcode: 'DN31 3NW',
        country: 'GB',
        latitude: 53.5763,
        longitude: -0.0712,
      },
      incorporatedDate: '2016-04-12T00:00:00.000Z',
      isPlatformMember: true,
      previousNames: [],
      avatar: { image: 'https://logos.example.com/GB/09876543.png', initials: 'Z' },
    });
    expect(Object.keys(companies[500]!)).toEqual(Object.keys(fixtureCompanies.uniqueName));
  });
});
