import countries from 'i18n-iso-countries';
import english from 'i18n-iso-countries/langs/en.json' with { type: 'json' };

countries.registerLocale(english);

/** Names UK registers use for the nations of the United Kingdom, which ISO 3166-1 does not list. */
const UK_NATIONS = new Set(['ENGLAND', 'SCOTLAND', 'WALES', 'NORTHERN IRELAND']);

export function isCountryCode(value: string): boolean {
  return /^[A-Z]{2}$/.test(value) && countries.isValid(value);
}

/** The ISO 3166-1 alpha-2 code of a country given as a code or an English name, when recognisable. */
export function toCountryCode(country: string): string | null {
  const trimmed = country.trim();
  const upper = trimmed.toUpperCase();
  if (isCountryCode(upper)) return upper;
  if (UK_NATIONS.has(upper)) return 'GB';
  return countries.getAlpha2Code(trimmed, 'en') ?? null;
}
