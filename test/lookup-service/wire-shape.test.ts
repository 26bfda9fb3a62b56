/**
 * The embedded lookup service types the companies it writes from the
 * gateway's declaration (upstream/company.ts): the type checker makes it write
 * every declared field. These tests read what it writes through the gateway's
 * own reader, so that a field it writes null everywhere, or in a form the
 * reader does not take, fails here rather than answering null to every
 * client. test/schema/declared-fields.test.ts serves them.
 */
import { describe, expect, it } from 'vitest';
import { allFixtureCompanies, type CompanyResult, defaultDataSet, fixtureCompanies } from '../../src/lookup-service/index.js';
import { readSearchResponse } from '../../src/upstream/search-response.js';
import { declaredFields, emptyDeclaredFields, filledDeclaredFields } from '../support/declared-companies.js';

/** `companies` as the search endpoint writes them, read by the gateway's reader. */
function read(companies: readonly CompanyResult[]) {
  const slots = [];
  const invalidFields = [];
  for (const jurisdiction of ['GB', 'IE']) {
    const written = companies.filter((company) => company.jurisdiction === jurisdiction);
    const answer = readSearchResponse(JSON.stringify({ results: written, total: written.length }), jurisdiction, 'test', written.length);
    slots.push(...answer.slots);
    invalidFields.push(...answer.invalidFields);
  }
  expect(slots).toHaveLength(companies.length);
  return { slots, invalidFields };
}

describe('the companies the embedded lookup service writes, read by the gateway', () => {
  it('reads every fixture company with nothing unreadable', () => {
    const { slots, invalidFields } = read(allFixtureCompanies);
    expect(invalidFields).toEqual([]);
    expect(slots.every((company) => company !== null)).toBe(true);
  });

  it('reads the complete fixture company with every declared field filled, at every depth', () => {
    const { slots, invalidFields } = read([fixtureCompanies.withPreviousNames]);
    expect(invalidFields).toEqual([]);
    expect(emptyDeclaredFields(slots[0])).toEqual([]);
  });

  it('reads the generated companies with nothing unreadable, and every declared field filled in some of them', () => {
    const fixtures = new Set(allFixtureCompanies);
    const { slots, invalidFields } = read(defaultDataSet().filter((company) => !fixtures.has(company)));
    expect(invalidFields).toEqual([]);
    const filled = filledDeclaredFields(slots);
    expect(declaredFields().filter((field) => !filled.has(field))).toEqual([]);
  });
});
