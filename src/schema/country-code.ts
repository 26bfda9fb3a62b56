// The package's main entry registers the country names of all its 78 languages; only English ones are read here, so
// the bare library is imported and English registered.
import countries from 'i18n-iso-countries/index.js';
import english from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import { boundedMemo } from './bounded-memo.js';

countries.registerLocale(english);

/** Names UK registers use for the nations of the United Kingdom, which ISO 3166-1 does not list. */
const UK_NATIONS = new Set(['ENGLAND', 'SCOTLAND', 'WALES', 'NORTHERN IRELAND']);

/**
 * Codes ISO 3166-1 leaves to users (AA, QM–QZ, XA–XZ, ZZ). i18n-iso-countries
 * lists one of them, XK, which some use for Kosovo; it is no ISO code, and
 * the lookup service takes ISO codes only.
 */
const USER_ASSIGNED = /^(?:AA|Q[M-Z]|X[A-Z]|ZZ)$/;

/** Codes given in place of an ISO one: UK, which ISO reserves for the United Kingdom's GB, and the EU's EL for Greece. */
const CODES_IN_PLACE_OF_ISO: Readonly<Record<string, string>> = { UK: 'GB', EL: 'GR' };

/** Longer than any English country name i18n-iso-countries knows (the longest has 44 characters). */
const LONGEST_COUNTRY_NAME = 64;

export function isCountryCode(value: string): boolean {
  return /^[A-Z]{2}$/.test(value) && !USER_ASSIGNED.test(value) && countries.isValid(value);
}

/** Distinct countries remembered as the upstream writes them: about 250 codes, and some names. */
const REMEMBERED_COUNTRIES = 1_024;

/** The ISO 3166-1 alpha-2 code of a country given as a code or an English name, when recognisable. */
export const toCountryCode = boundedMemo((country: string): string | null => {
  const trimmed = country.trim();
  const upper = trimmed.toUpperCase();
  if (isCountryCode(upper)) return upper;
  if (UK_NATIONS.has(upper)) return 'GB';
  const code = countries.getAlpha2Code(trimmed, 'en');
  return code !== undefined && isCountryCode(code) ? code : null;
}, REMEMBERED_COUNTRIES);

/**
 * Why `value` is not a country code, with the code probably meant when
 * there is one: for `UK`, a three-letter code (`DEU`) or an English
 * country name in any case (`United Kingdom`, `germany`).
 */
export function countryCodeProblem(value: string): string {
  const shown = value.length <= LONGEST_COUNTRY_NAME ? JSON.stringify(value) : `A value of ${value.length} characters`;
  const meant = value.length <= LONGEST_COUNTRY_NAME ? probableCountryCode(value) : undefined;
  if (meant !== undefined) return `${shown} is not an ISO 3166-1 alpha-2 country code; did you mean "${meant}"?`;
  if (USER_ASSIGNED.test(value.trim().toUpperCase())) {
    return `${shown} is a user-assigned code, not an ISO 3166-1 alpha-2 country code; give the ISO code of the register's country, such as "GB" or "IE"`;
  }
  return `${shown} is not an ISO 3166-1 alpha-2 country code such as "GB" or "IE"`;
}

function probableCountryCode(value: string): string | undefined {
  const upper = value.trim().toUpperCase();
  const code = CODES_IN_PLACE_OF_ISO[upper] ?? countries.alpha3ToAlpha2(upper) ?? toCountryCode(value);
  return code !== null && code !== undefined && isCountryCode(code) ? code : undefined;
}
