import type { Address, Avatar, Company, PreviousName } from './company.js';
import { UpstreamBadResponseError } from './errors.js';

export interface SearchResponse {
  /**
   * One slot per result the upstream sent, in its order, so positions stay
   * the upstream's; null where a result was unreadable and left out.
   */
  slots: (Company | null)[];
  total: number;
  /** Paths of the fields that were malformed and read as null, or of results left out. */
  invalidFields: string[];
}

type Json = Record<string, unknown>;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const JURISDICTION = /^[A-Za-z]{2}$/;

/**
 * Reads a search body field by field: a malformed or missing field becomes
 * null on its own, a result without name or company number is left out, and
 * unknown fields are ignored. Only a body that is not JSON, or has no
 * `results` array, fails as a whole.
 */
export function readSearchResponse(body: string, searchedJurisdiction: string, where: string): SearchResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new UpstreamBadResponseError(`Company lookup service sent a search response that is not JSON on ${where}`);
  }
  if (!isObject(parsed) || !Array.isArray(parsed.results)) {
    throw new UpstreamBadResponseError(`Company lookup service sent a search response without a results array on ${where}`);
  }
  const invalidFields: string[] = [];
  const slots = parsed.results.map((result: unknown, index) =>
    readCompany(result, searchedJurisdiction, new FieldReport(`results[${index}]`, invalidFields)),
  );
  if (!isCount(parsed.total)) invalidFields.push('total');
  const total = isCount(parsed.total) ? parsed.total : slots.length;
  return { slots, total: Math.max(total, slots.length), invalidFields };
}

/** Collects the paths of invalid fields below one place in the payload. */
class FieldReport {
  constructor(
    readonly path: string,
    private readonly sink: string[],
  ) {}

  below(key: string | number): FieldReport {
    return new FieldReport(typeof key === 'number' ? `${this.path}[${key}]` : `${this.path}.${key}`, this.sink);
  }

  invalid(key?: string): null {
    this.sink.push(key === undefined ? this.path : `${this.path}.${key}`);
    return null;
  }

  /** A field that is absent or null is simply null; any other wrong type is reported. */
  read<T>(source: Json, key: string, accept: (value: unknown) => T | null): T | null {
    const value = source[key];
    if (value === undefined || value === null) return null;
    return accept(value) ?? this.invalid(key);
  }
}

function readCompany(result: unknown, searchedJurisdiction: string, report: FieldReport): Company | null {
  if (!isObject(result)) return report.invalid();
  const name = nonEmptyString(result.name);
  const companyNumber = nonEmptyString(result.companyNumber);
  if (name === null || companyNumber === null) return report.invalid();
  return {
    name,
    companyNumber,
    jurisdiction: report.read(result, 'jurisdiction', jurisdictionCode) ?? searchedJurisdiction,
    status: report.read(result, 'status', nonEmptyString),
    address: readAddress(result, report),
    incorporatedDate: report.read(result, 'incorporatedDate', dateTime),
    isPlatformMember: report.read(result, 'isPlatformMember', (value) => (typeof value === 'boolean' ? value : null)),
    previousNames: readPreviousNames(result.previousNames, report.below('previousNames')),
    avatar: readAvatar(result.avatar, report.below('avatar')),
  };
}

function readAddress(result: Json, report: FieldReport): Address | null {
  const formatted = report.read(result, 'address', nonEmptyString);
  const structured = result.addressStructured;
  const parts = report.below('addressStructured');
  if (structured !== undefined && structured !== null && !isObject(structured)) parts.invalid();
  if (!isObject(structured)) {
    return formatted === null ? null : { ...EMPTY_ADDRESS, formatted };
  }
  return {
    formatted,
    streetLine1: parts.read(structured, 'streetLine1', nonEmptyString),
    streetLine2: parts.read(structured, 'streetLine2', nonEmptyString),
    city: parts.read(structured, 'city', nonEmptyString),
    region: parts.read(structured, 'region', nonEmptyString),
    postcode: parts.read(structured, 'postcode', nonEmptyString),
    country: parts.read(structured, 'country', nonEmptyString),
    latitude: parts.read(structured, 'latitude', coordinate(90)),
    longitude: parts.read(structured, 'longitude', coordinate(180)),
  };
}

const EMPTY_ADDRESS: Address = {
  formatted: null,
  streetLine1: null,
  streetLine2: null,
  city: null,
  region: null,
  postcode: null,
  country: null,
  latitude: null,
  longitude: null,
};

function readPreviousNames(value: unknown, report: FieldReport): PreviousName[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return report.invalid() ?? [];
  const names: PreviousName[] = [];
  value.forEach((entry: unknown, index) => {
    const entryReport = report.below(index);
    const name = isObject(entry) ? nonEmptyString(entry.name) : null;
    if (!isObject(entry) || name === null) return entryReport.invalid();
    names.push({
      name,
      startDate: entryReport.read(entry, 'startDate', dateOnly),
      endDate: entryReport.read(entry, 'endDate', dateOnly),
    });
  });
  return names;
}

function readAvatar(value: unknown, report: FieldReport): Avatar | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) return report.invalid();
  return {
    image: report.read(value, 'image', httpUrl),
    initials: report.read(value, 'initials', nonEmptyString),
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function jurisdictionCode(value: unknown): string | null {
  return typeof value === 'string' && JURISDICTION.test(value) ? value.toUpperCase() : null;
}

function dateTime(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
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

function coordinate(limit: number): (value: unknown) => number | null {
  return (value) => (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit ? value : null);
}

function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string' || !URL.canParse(value)) return null;
  const { protocol } = new URL(value);
  return protocol === 'https:' || protocol === 'http:' ? value : null;
}
