// The package's main entry also loads the country names of every language;
// only the code table is needed here, so import the bare library.
import countries from 'i18n-iso-countries/index.js';

/** Every ISO 3166-1 alpha-2 code, upper-case. */
export const ISO_ALPHA2_CODES: ReadonlySet<string> = new Set(Object.keys(countries.getAlpha2Codes()));
