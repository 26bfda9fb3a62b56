/**
 * The schema serves every field upstream/company.ts declares, under its own
 * name: the fixture company the lookup service writes whole
 * (test/lookup-service/wire-shape.test.ts), asked for every declared field,
 * answers each with a value. A field declared and read but left out of the
 * schema fails here, as one the schema serves from something else would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFixtureCompanies, fixtureCompanies } from '../../src/lookup-service/index.js';
import { declaredSelection, emptyDeclaredFields } from '../support/declared-companies.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ lookup: { companies: allFixtureCompanies } });
});
afterAll(() => stack?.close());

describe('the fields the declaration holds', () => {
  it('are each served, with a value, for the fixture company that has them all', async () => {
    const { jurisdiction, companyNumber } = fixtureCompanies.withPreviousNames;
    const query = `query($jurisdiction: CountryCode!, $companyNumber: String!) {
      company(jurisdiction: $jurisdiction, companyNumber: $companyNumber) ${declaredSelection()}
    }`;
    const answer = await stack.post({ query, variables: { jurisdiction, companyNumber } });
    const body = JSON.parse(answer.text);
    expect(body.errors).toBeUndefined();
    expect(body.data.company).toMatchObject({ jurisdiction, companyNumber });
    expect(emptyDeclaredFields(body.data.company)).toEqual([]);
  });
});
