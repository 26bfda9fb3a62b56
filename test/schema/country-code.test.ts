// Nothing here may import the package's main entry ('i18n-iso-countries'): it registers every language in the one
// instance this test inspects, and would hide a country-code module that loads them all, or forgets English.
import countries from 'i18n-iso-countries/index.js';
import { describe, expect, it } from 'vitest';
import { toCountryCode } from '../../src/schema/country-code.js';

describe('country codes', () => {
  it('registers the English country names only: the main entry would load all 78 languages at every start', () => {
    expect(countries.langs()).toEqual(['en']);
  });

  it('recognises English country names, the only ones the hints read', () => {
    expect(['Germany', 'united kingdom', 'Ireland', 'Allemagne'].map((name) => toCountryCode(name))).toEqual(['DE', 'GB', 'IE', null]);
  });
});
