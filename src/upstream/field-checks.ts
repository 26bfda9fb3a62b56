import type { AddressField, Field, ListField, ObjectField } from './company.js';

/** A field of the declaration that holds one value, not an object or a list. */
export type ValueField = Exclude<Field, ObjectField | ListField | AddressField>;

/** The value as the gateway keeps it, or null when it is malformed or too long. */
export type ValueCheck = (value: unknown) => unknown;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const JURISDICTION = /^[A-Za-z]{2}$/;

/**
 * How a value of `field` is checked: against its kind, its range and its cap,
 * the length of a string counted before anything else looks at it. The
 * reader of search bodies (search-response.ts) checks the upstream's values
 * with these, and the window codec (window-codec.ts) what Redis holds.
 */
export function valueCheck(field: ValueField): ValueCheck {
  switch (field.kind) {
    case 'text':
      return (value) => (typeof value === 'string' && value.length <= field.maxLength && value.trim() !== '' ? value : null);
    case 'url':
      return (value) => (typeof value === 'string' && value.length <= field.maxLength ? httpUrl(value) : null);
    case 'dateTime':
      return (value) => (typeof value === 'string' && value.length <= field.maxLength ? dateTime(value) : null);
    case 'date':
      return dateOnly;
    case 'number':
      return (value) => (typeof value === 'number' && value >= field.min && value <= field.max ? value : null);
    case 'boolean':
      return (value) => (typeof value === 'boolean' ? value : null);
    case 'jurisdiction':
      return jurisdictionCode;
  }
}

function jurisdictionCode(value: unknown): string | null {
  return typeof value === 'string' && JURISDICTION.test(value) ? value.toUpperCase() : null;
}

function dateTime(value: string): Date | null {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function dateOnly(value: unknown): string | null {
  const match = typeof value === 'string' ? DATE_ONLY.exec(value) : null;
  if (!match) return null;
  const [, year, month, day] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? (value as string) : null;
}

/** One parse, not URL.canParse and then new URL: there is one per result, and a parse is most of reading one. */
function httpUrl(value: string): string | null {
  let protocol: string;
  try {
    ({ protocol } = new URL(value));
  } catch {
    return null;
  }
  return protocol === 'https:' || protocol === 'http:' ? value : null;
}
