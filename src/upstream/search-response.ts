import type { Address, Avatar, Company, InvalidFields, PreviousName } from './company.js';
import { UpstreamBadResponseError } from '../errors/upstream-errors.js';

export interface SearchResponse {
  /**
   * One slot per result the upstream sent, in its order, so positions stay
   * the upstream's; null where a result was unreadable and left out. At most
   * the page size asked for.
   */
  slots: (Company | null)[];
  /** Results the upstream sent past the page size asked for, left out unread. */
  unasked: number;
  /** Previous names left out unread past MAX_PREVIOUS_NAMES of one company, over all results. */
  previousNamesLeftOut: number;
  total: number;
  /** Paths of the fields that were malformed and read as null, or of results left out. */
  invalidFields: string[];
}

type Json = Record<string, unknown>;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const JURISDICTION = /^[A-Za-z]{2}$/;

/** The largest integer GraphQL's Int (and so totalCount) can hold. */
const MAX_GRAPHQL_INT = 2 ** 31 - 1;

/**
 * Most previous names read per company; any past them are left out unread.
 * Answers are sized before they are built (MAX_RESULT_FIELDS) with this as
 * the length of every company's list, so it must hold. Registers list a
 * handful (the data set at most 3).
 */
export const MAX_PREVIOUS_NAMES = 20;

/**
 * Reads a search body field by field: a malformed or missing field becomes
 * null on its own, a result without name or company number is left out, and
 * unknown fields are ignored. Only a body that is not JSON, or has no
 * `results` array, fails as a whole. Results past `pageSize`, the most the
 * gateway asked for, are not read at all: a window keeps what it asked for,
 * whatever the upstream sends.
 */
export function readSearchResponse(body: string, searchedJurisdiction: string, where: string, pageSize: number): SearchResponse {
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
  const leftOut = { previousNames: 0 };
  const asked = parsed.results.length > pageSize ? parsed.results.slice(0, pageSize) : parsed.results;
  const slots = asked.map((result: unknown, index) =>
    readCompany(result, searchedJurisdiction, FieldReport.forResult(index, invalidFields), leftOut),
  );
  if (!isCount(parsed.total)) invalidFields.push('total');
  const total = isCount(parsed.total) ? parsed.total : slots.length;
  return {
    slots,
    unasked: parsed.results.length - asked.length,
    previousNamesLeftOut: leftOut.previousNames,
    total: Math.max(total, slots.length),
    invalidFields,
  };
}

/**
 * A place in the payload, e.g. `results[3].avatar`. Its paths are only built
 * when an invalid field there needs them: nearly every place is read clean,
 * and a search reads hundreds of them.
 */
class Place {
  #path: string | undefined;
  #within: string | undefined;

  constructor(
    private readonly parent: Place | undefined,
    /** The step from the parent; for a result, its index in `results`. */
    private readonly key: string | number,
  ) {}

  /** Path from the top of the body, e.g. `results[3].avatar`. */
  get path(): string {
    this.#path ??= this.parent === undefined ? `results[${this.key}]` : stepped(this.parent.path, this.key);
    return this.#path;
  }

  /** Path within the result, e.g. `avatar`. */
  get within(): string {
    this.#within ??= this.parent === undefined ? '' : this.parent.inside(this.key);
    return this.#within;
  }

  /** The path within the result of `key` below this place. */
  inside(key: string | number): string {
    return typeof key === 'number' ? `${this.within}[${key}]` : this.within === '' ? key : `${this.within}.${key}`;
  }
}

function stepped(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`;
}

/**
 * Collects the invalid fields found while reading one place of the payload:
 * their paths for the log, and, for the object being built, which of its
 * fields they fed, so the schema can report each one where a client selected it.
 */
class FieldReport {
  constructor(
    private readonly place: Place,
    private readonly sink: string[],
    private readonly target: Record<string, string> = {},
  ) {}

  /** The report for result `index` of the payload. */
  static forResult(index: number, sink: string[]): FieldReport {
    return new FieldReport(new Place(undefined, index), sink);
  }

  /** The report for a place below this one, feeding the same object. */
  below(key: string | number): FieldReport {
    return new FieldReport(new Place(this.place, key), this.sink, this.target);
  }

  /** The report for a new object read at this place: its invalid fields are its own. */
  forObject(): FieldReport {
    return new FieldReport(this.place, this.sink);
  }

  /** Records the value at this place as invalid, feeding these `fields` of the object. */
  invalid(...fields: string[]): null {
    this.sink.push(this.place.path);
    for (const field of fields) this.target[field] = this.place.within;
    return null;
  }

  /** Records that `field` of the object is null because of an invalid value already reported at `within`. */
  nullBecauseOf(field: string, within: string): void {
    this.target[field] = within;
  }

  /**
   * Reads `key` of `source`: absent or null is simply null; any other value
   * `accept` refuses is reported as feeding `field` (by default `key`; null:
   * the caller substitutes a value of its own and no client needs telling).
   */
  read<T>(source: Json, key: string, accept: (value: unknown) => T | null, field: string | null = key): T | null {
    const value = source[key];
    if (value === undefined || value === null) return null;
    const accepted = accept(value);
    if (accepted !== null) return accepted;
    this.sink.push(stepped(this.place.path, key));
    if (field !== null) this.target[field] = this.place.inside(key);
    return null;
  }

  /** `{ invalid }` to spread into the object read, or nothing when all its fields were readable. */
  fields(): { invalid?: InvalidFields } {
    return Object.keys(this.target).length === 0 ? {} : { invalid: this.target };
  }
}

function readCompany(
  result: unknown,
  searchedJurisdiction: string,
  report: FieldReport,
  leftOut: { previousNames: number },
): Company | null {
  if (!isObject(result)) return report.invalid();
  const name = nonEmptyString(result.name);
  const companyNumber = nonEmptyString(result.companyNumber);
  if (name === null || companyNumber === null) return report.invalid();
  const company: Company = {
    name,
    companyNumber,
    // The search was for this jurisdiction, so it stands in for an unreadable one.
    jurisdiction: report.read(result, 'jurisdiction', jurisdictionCode, null) ?? searchedJurisdiction,
    status: report.read(result, 'status', nonEmptyString),
    address: readAddress(result, report),
    incorporatedDate: report.read(result, 'incorporatedDate', dateTime),
    isPlatformMember: report.read(result, 'isPlatformMember', (value) => (typeof value === 'boolean' ? value : null)),
    previousNames: readPreviousNames(result.previousNames, report.below('previousNames'), leftOut),
    avatar: readAvatar(result.avatar, report.below('avatar')),
  };
  return Object.assign(company, report.fields());
}

const ADDRESS_PARTS = ['streetLine1', 'streetLine2', 'city', 'region', 'postcode', 'country', 'latitude', 'longitude'] as const;

function readAddress(result: Json, companyReport: FieldReport): Address | null {
  const report = companyReport.forObject();
  const formatted = report.read(result, 'address', nonEmptyString, 'formatted');
  const structured = result.addressStructured;
  const parts = report.below('addressStructured');
  if (!isObject(structured)) {
    if (structured !== undefined && structured !== null) parts.invalid(...ADDRESS_PARTS);
    if (formatted !== null) return { ...EMPTY_ADDRESS, formatted, ...report.fields() };
    const cause = report.fields().invalid;
    if (cause) companyReport.nullBecauseOf('address', Object.values(cause).join(', '));
    return null;
  }
  return {
    formatted,
    streetLine1: parts.read(structured, 'streetLine1', nonEmptyString),
    streetLine2: parts.read(structured, 'streetLine2', nonEmptyString),
    city: parts.read(structured, 'city', nonEmptyString),
    region: parts.read(structured, 'region', nonEmptyString),
    postcode: parts.read(structured, 'postcode', nonEmptyString),
    country: parts.read(structured, 'country', nonEmptyString),
    latitude: parts.read(structured, 'latitude', validLatitude),
    longitude: parts.read(structured, 'longitude', validLongitude),
    ...report.fields(),
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

function readPreviousNames(value: unknown, report: FieldReport, leftOut: { previousNames: number }): PreviousName[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return report.invalid('previousNames') ?? [];
  const names: PreviousName[] = [];
  leftOut.previousNames += Math.max(0, value.length - MAX_PREVIOUS_NAMES);
  value.slice(0, MAX_PREVIOUS_NAMES).forEach((entry: unknown, index) => {
    const entryReport = report.below(index);
    const name = isObject(entry) ? nonEmptyString(entry.name) : null;
    if (!isObject(entry) || name === null) {
      entryReport.invalid('previousNames');
      return;
    }
    const own = entryReport.forObject();
    names.push({
      name,
      startDate: own.read(entry, 'startDate', dateOnly),
      endDate: own.read(entry, 'endDate', dateOnly),
      ...own.fields(),
    });
  });
  return names;
}

function readAvatar(value: unknown, report: FieldReport): Avatar | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) return report.invalid('avatar');
  const own = report.forObject();
  return {
    image: own.read(value, 'image', httpUrl),
    initials: own.read(value, 'initials', nonEmptyString),
    ...own.fields(),
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A count totalCount can answer: one past GraphQL's Int would fail the whole search, so it is malformed like any other. */
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_GRAPHQL_INT;
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

const validLatitude = coordinate(90);
const validLongitude = coordinate(180);

/** One parse, not URL.canParse and then new URL: there is one per result, and a parse is most of reading one. */
function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  let protocol: string;
  try {
    ({ protocol } = new URL(value));
  } catch {
    return null;
  }
  return protocol === 'https:' || protocol === 'http:' ? value : null;
}
