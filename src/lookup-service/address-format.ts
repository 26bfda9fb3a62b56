import type { StructuredAddress } from './company.js';

const COUNTRY_LABELS: Readonly<Record<string, string>> = { GB: 'United Kingdom', IE: 'Ireland' };

/** The one-line address: the parts that are present, joined by commas, with the country written out. */
export function formatAddress(parts: StructuredAddress): string {
  const country = parts.country === null ? null : (COUNTRY_LABELS[parts.country] ?? parts.country);
  return [parts.streetLine1, parts.streetLine2, parts.city, parts.region, parts.postcode, country]
    .filter((part): part is string => part !== null)
    .join(', ');
}

export function companyInitials(name: string): string {
  const firstLetter = name.normalize('NFD').match(/\p{L}/u)?.[0];
  if (firstLetter === undefined) throw new RangeError(`Company name has no letter: ${name}`);
  return firstLetter.toUpperCase();
}

export function logoUrl(jurisdiction: string, companyNumber: string): string {
  return `https://logos.example.com/${jurisdiction}/${companyNumber}.png`;
}
