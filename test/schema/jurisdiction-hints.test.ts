import countries from 'i18n-iso-countries';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countryCodeProblem, isCountryCode } from '../../src/schema/country-code.js';
import { SearchCompaniesDocument } from '../generated/graphql.js';
import { startStack, type Stack } from '../support/stack.js';

describe('jurisdiction hints', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.lookup.counters.reset());

  async function refusal(jurisdiction: string) {
    const { body } = await stack.execute(SearchCompaniesDocument, { q: 'acme', jurisdiction });
    expect(body.data).toBeNull();
    expect(body.errors).toMatchObject([{ extensions: { code: 'BAD_USER_INPUT', argument: 'jurisdiction' } }]);
    expect(stack.lookup.counters.searchRequests).toBe(0);
    return body.errors![0]!.message;
  }

  it.each([
    ['UK', '"UK"', 'GB'],
    ['uk', '"UK"', 'GB'],
    ['United Kingdom', '"United Kingdom"', 'GB'],
    ['united kingdom', '"united kingdom"', 'GB'],
    ['germany', '"germany"', 'DE'],
    ['GERMANY', '"GERMANY"', 'DE'],
    ['England', '"England"', 'GB'],
    ['gbr', '"gbr"', 'GB'],
    ['DEU', '"DEU"', 'DE'],
    ['EL', '"EL"', 'GR'],
  ])('refuses %s with the code meant', async (given, shown, meant) => {
    expect(await refusal(given)).toBe(`jurisdiction: ${shown} is not an ISO 3166-1 alpha-2 country code; did you mean "${meant}"?`);
  });

  it.each(['XK', 'xk', 'AA', 'QZ', 'ZZ'])('refuses the user-assigned code %s, which ISO 3166-1 does not define', async (code) => {
    expect(await refusal(code)).toBe(
      `jurisdiction: "${code.toUpperCase()}" is a user-assigned code, not an ISO 3166-1 alpha-2 country code; give the ISO code of the register's country, such as "GB" or "IE"`,
    );
  });

  it.each(['EU', 'Atlantis', '12'])('refuses %s without a guess', async (given) => {
    expect(await refusal(given)).toBe(
      `jurisdiction: ${JSON.stringify(given)} is not an ISO 3166-1 alpha-2 country code such as "GB" or "IE"`,
    );
  });

  it('does not quote a long value', async () => {
    expect(await refusal('x'.repeat(5_000))).toBe(
      'jurisdiction: A value of 5000 characters is not an ISO 3166-1 alpha-2 country code such as "GB" or "IE"',
    );
  });

  it('hints in literals and on company(...) too, and still takes a code in any case', async () => {
    const literal = JSON.parse((await stack.post({ query: '{ searchCompanies(q: "acme", jurisdiction: uk) { totalCount } }' })).text);
    expect(literal.errors[0].message).toBe('jurisdiction: "UK" is not an ISO 3166-1 alpha-2 country code; did you mean "GB"?');
    const company = JSON.parse((await stack.post({ query: '{ company(jurisdiction: "Ireland", companyNumber: "1") { name } }' })).text);
    expect(company.errors[0]).toMatchObject({
      message: 'jurisdiction: "Ireland" is not an ISO 3166-1 alpha-2 country code; did you mean "IE"?',
      extensions: { code: 'BAD_USER_INPUT', argument: 'jurisdiction' },
    });
    const { body } = await stack.execute(SearchCompaniesDocument, { q: 'Zebra Quantum', jurisdiction: ' gb ' });
    expect(body.data!.searchCompanies.totalCount).toBe(1);
  });
});

describe('country codes and names', () => {
  const names = countries.getNames('en', { select: 'official' });

  it('takes every code of i18n-iso-countries but the user-assigned XK', () => {
    const codes = Object.keys(countries.getAlpha2Codes());
    expect(codes.length).toBeGreaterThan(240);
    expect(codes.filter((code) => !isCountryCode(code))).toEqual(['XK']);
  });

  it('suggests the code of every country named in English, whatever its case', () => {
    const missed = Object.entries(names)
      .filter(([code]) => code !== 'XK')
      .filter(([code, name]) => !countryCodeProblem(name.toLowerCase()).endsWith(`did you mean "${code}"?`));
    expect(missed).toEqual([]);
  });

  it('never suggests the user-assigned XK', () => {
    expect(countryCodeProblem('Kosovo')).toBe('"Kosovo" is not an ISO 3166-1 alpha-2 country code such as "GB" or "IE"');
  });
});
