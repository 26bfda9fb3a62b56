import {
  type Address,
  type AddressField,
  COMPANY,
  type Company,
  fieldNames,
  type ListField,
  MAX_PREVIOUS_NAMES,
  type ObjectField,
  type Shape,
  type TextField,
} from './company.js';
import { type ValueCheck, valueCheck } from './field-checks.js';
import { FieldReport, type Json } from './field-report.js';
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

/** The largest integer GraphQL's Int (and so totalCount) can hold. */
const MAX_GRAPHQL_INT = 2 ** 31 - 1;

/** Re-exported for the rooms that size answers and log what was left out: the declaration holds it. */
export { MAX_PREVIOUS_NAMES };

/**
 * Reads a search body field by field, as upstream/company.ts declares the
 * fields: a malformed or missing field, or a string over its cap, becomes
 * null on its own, a result without a readable name or company number is left
 * out, and unknown fields are ignored. Only a body that is not JSON, or has no
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

/** Previous names left out unread, over a whole search body. */
interface LeftOut {
  previousNames: number;
}

/** Lists inside lists are not declared: nothing below a list entry counts previous names left out. */
const NOTHING_LEFT_OUT: LeftOut = { previousNames: 0 };

/** The field of an address read from the result's one-line `address`; the others come from `addressStructured`. */
const ONE_LINE = 'formatted';

/** Reads a field that holds an object or a list: the value the gateway keeps, reported where malformed. */
type FieldReader = (source: Json, report: FieldReport, leftOut: LeftOut) => unknown;

/** How one object of a declared shape is read; made once per shape, when this module loads. */
interface ShapeReader {
  /** The required fields and their checks, looked at first: a source without one is left out. */
  required: readonly (readonly [name: string, check: ValueCheck])[];
  /** Every field read from `source` into an object of the declared fields, in their order; `given` is the value of the `given` field. */
  build: (source: Json, report: FieldReport, leftOut: LeftOut, given?: unknown) => Record<string, unknown>;
}

/**
 * The reader of one object of `shape`. Its `build` is an object literal of
 * the declared fields in their order (a plain value is `report.read` with its
 * check, an object or a list its reader's result), made into a function once:
 * every object of a shape then has one layout from the start. Built field by
 * field instead (`read[name] = ...`, a function per field), each store looks
 * up a change of layout, and reading a page was markedly slower than the
 * hand-written reader this replaced. The function's text is made of the
 * declaration's field names, quoted, and never of anything read. `given`: a
 * field whose value the caller reads itself (an address's one-line form).
 */
function shapeReader(shape: Shape, given?: string): ShapeReader {
  const checks: (ValueCheck | undefined)[] = [];
  const readers: (FieldReader | undefined)[] = [];
  const required: (readonly [string, ValueCheck])[] = [];
  const fields = fieldNames(shape).map((name, index) => {
    const field = shape[name]!;
    const key = JSON.stringify(name);
    if (name === given) return `${key}: given`;
    switch (field.kind) {
      case 'object':
      case 'list':
      case 'address':
        readers[index] = fieldReader(name, field);
        return `${key}: readers[${index}](source, report, leftOut)`;
      case 'jurisdiction':
        // The search was for one jurisdiction, which the caller puts in place of an unreadable one: nobody needs telling.
        checks[index] = valueCheck(field);
        return `${key}: report.read(source, ${key}, checks[${index}], null)`;
      default:
        checks[index] = valueCheck(field);
        if (field.kind !== 'text' || !field.required) return `${key}: report.read(source, ${key}, checks[${index}])`;
        // Checked before the object is built, as every required field is: the value is as read.
        required.push([name, checks[index]]);
        return `${key}: source[${key}]`;
    }
  });
  const build = new Function('checks', 'readers', `return (source, report, leftOut, given) => ({ ${fields.join(', ')} });`);
  return { required, build: build(checks, readers) as ShapeReader['build'] };
}

function fieldReader(name: string, field: ObjectField | ListField | AddressField): FieldReader {
  switch (field.kind) {
    case 'object': {
      const reader = shapeReader(field.shape);
      return (source, report) => readObject(reader, name, source[name], report.below(name));
    }
    case 'list': {
      const reader = shapeReader(field.shape);
      return (source, report, leftOut) => readList(reader, field.maxItems, name, source[name], report.below(name), leftOut);
    }
    case 'address': {
      const reader = addressReader(field.shape);
      return (source, report) => readAddress(reader, source, report);
    }
  }
}

/** The first of the shape's required fields that `source` has no readable value for, if any. */
function missingRequired(reader: ShapeReader, source: Json): string | undefined {
  for (const [name, check] of reader.required) if (check(source[name]) === null) return name;
  return undefined;
}

/** The fields of a shape read from `source`, whose required fields are known to be there, with those it found malformed. */
function readFields(reader: ShapeReader, source: Json, report: FieldReport, leftOut: LeftOut, given?: unknown): Record<string, unknown> {
  const read = reader.build(source, report, leftOut, given);
  report.noteInvalid(read);
  return read;
}

const COMPANY_READER = shapeReader(COMPANY);

function readCompany(result: unknown, searchedJurisdiction: string, report: FieldReport, leftOut: LeftOut): Company | null {
  if (!isObject(result)) return report.invalid();
  const missing = missingRequired(COMPANY_READER, result);
  if (missing !== undefined) return report.unreadable(missing);
  const company = readFields(COMPANY_READER, result, report, leftOut) as Company;
  company.jurisdiction ??= searchedJurisdiction;
  return company;
}

function readObject(reader: ShapeReader, name: string, value: unknown, report: FieldReport): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) return report.invalid(name);
  const missing = missingRequired(reader, value);
  if (missing !== undefined) return report.unreadable(missing, name);
  return readFields(reader, value, report.forObject(), NOTHING_LEFT_OUT);
}

function readList(
  reader: ShapeReader,
  maxItems: number,
  name: string,
  value: unknown,
  report: FieldReport,
  leftOut: LeftOut,
): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return report.invalid(name) ?? [];
  const entries: Record<string, unknown>[] = [];
  leftOut.previousNames += Math.max(0, value.length - maxItems);
  value.slice(0, maxItems).forEach((entry: unknown, index) => {
    const entryReport = report.below(index);
    if (!isObject(entry)) {
      entryReport.invalid(name);
      return;
    }
    const missing = missingRequired(reader, entry);
    if (missing !== undefined) entryReport.unreadable(missing, name);
    else entries.push(readFields(reader, entry, entryReport.forObject(), NOTHING_LEFT_OUT));
  });
  return entries;
}

interface AddressReader {
  oneLine: ValueCheck;
  parts: ShapeReader;
  partNames: readonly string[];
  /** The address known only by its one-line form, every part null: a copy of it, with that form. */
  onlyOneLine: Readonly<Record<string, null>>;
}

function addressReader(shape: Shape): AddressReader {
  return {
    oneLine: valueCheck(shape[ONE_LINE] as TextField),
    parts: shapeReader(shape, ONE_LINE),
    partNames: fieldNames(shape).filter((name) => name !== ONE_LINE),
    onlyOneLine: Object.fromEntries(fieldNames(shape).map((name) => [name, null])),
  };
}

function readAddress(reader: AddressReader, result: Json, companyReport: FieldReport): Address | null {
  const report = companyReport.forObject();
  const formatted = report.read(result, 'address', reader.oneLine, ONE_LINE);
  const structured = result.addressStructured;
  const parts = report.below('addressStructured');
  if (isObject(structured)) return readFields(reader.parts, structured, parts, NOTHING_LEFT_OUT, formatted) as Address;
  if (structured !== undefined && structured !== null) parts.invalid(...reader.partNames);
  if (formatted !== null) {
    const address: Record<string, unknown> = { ...reader.onlyOneLine, [ONE_LINE]: formatted };
    report.noteInvalid(address);
    return address as Address;
  }
  const cause = report.fields().invalid;
  if (cause) companyReport.nullBecauseOf('address', Object.values(cause).join(', '));
  return null;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A count totalCount can answer: one past GraphQL's Int would fail the whole search, so it is malformed like any other. */
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_GRAPHQL_INT;
}
