import { COMPANY, type Company, type Field, fieldNames, type Shape } from '../../src/upstream/company.js';

/**
 * Upstream JSON for every field that upstream/company.ts declares, each at
 * the edge of what the reader takes: a string as long as its cap, a number at
 * its bound, a date past year 9999, a list as long as it may be. Made from the
 * declaration, so a field declared later is in it without a change here.
 * `override` is applied at one field, e.g. to put a string past its cap.
 */
export function upstreamCompanyAtEdges(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...upstreamObject(COMPANY), ...overrides };
}

function upstreamObject(shape: Shape): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const name of fieldNames(shape)) {
    const field = shape[name]!;
    if (field.kind === 'address') {
      // The one-line form comes in the result's `address`, the parts in `addressStructured`.
      const { formatted, ...parts } = upstreamObject(field.shape);
      object.address = formatted;
      object.addressStructured = parts;
    } else {
      object[name] = upstreamValue(field);
    }
  }
  return object;
}

function upstreamValue(field: Exclude<Field, { kind: 'address' }>): unknown {
  switch (field.kind) {
    case 'text':
    case 'url':
      return stringOf(field.kind, field.maxLength);
    case 'dateTime':
      return '+010000-01-01T00:00:00.000Z';
    case 'date':
      return '2024-02-29';
    case 'number':
      return field.max;
    case 'boolean':
      return true;
    case 'jurisdiction':
      return 'gb';
    case 'object':
      return upstreamObject(field.shape);
    case 'list':
      return Array.from({ length: field.maxItems }, () => upstreamObject(field.shape));
  }
}

const URL_START = 'https://logos.example.com/';

/** A value a field of `kind` takes, `length` characters long. */
function stringOf(kind: 'text' | 'url', length: number): string {
  return kind === 'text' ? 'N'.repeat(length) : `${URL_START}${'a'.repeat(length - URL_START.length)}`;
}

export interface CappedUpstreamField {
  /** Where it is in the upstream's result, e.g. `['addressStructured', 'city']`. */
  path: string[];
  maxLength: number;
  required: boolean;
  /** A value it takes, of this many characters. */
  ofLength: (length: number) => string;
}

/** Every string field the declaration holds with its cap, where it is in the upstream's result. */
export function cappedUpstreamFields(): CappedUpstreamField[] {
  const found: CappedUpstreamField[] = [];
  const walk = (shape: Shape, at: string[]) => {
    for (const name of fieldNames(shape)) {
      const field = shape[name]!;
      if (field.kind === 'text' || field.kind === 'url') {
        const { kind, maxLength } = field;
        found.push({ path: [...at, name], maxLength, required: kind === 'text' && field.required, ofLength: (n) => stringOf(kind, n) });
      } else if (field.kind === 'object') {
        walk(field.shape, [...at, name]);
      } else if (field.kind === 'list') {
        walk(field.shape, [...at, name, '0']);
      } else if (field.kind === 'address') {
        for (const part of fieldNames(field.shape)) {
          const partField = field.shape[part]!;
          if (partField.kind !== 'text') continue;
          const path = part === 'formatted' ? ['address'] : [...at, 'addressStructured', part];
          found.push({ path, maxLength: partField.maxLength, required: partField.required, ofLength: (n) => stringOf('text', n) });
        }
      }
    }
  };
  walk(COMPANY, []);
  return found;
}

/** `object` with the value at `path` replaced; the objects and lists along the way are copied, not changed. */
export function withValueAt(object: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [step, ...rest] = path as [string, ...string[]];
  if (Array.isArray(object)) return object.map((entry, index) => (String(index) === step ? withValueAt(entry, rest, value) : entry));
  const record = object as Record<string, unknown>;
  return { ...record, [step]: withValueAt(record[step], rest, value) };
}

/**
 * A company as the reader holds it, with `fields` as given and every other
 * field the declaration holds empty: null, or an empty list. A test that
 * builds companies so does not change when a field is declared.
 */
export function companyWith(fields: Partial<Company> & Pick<Company, 'name' | 'companyNumber' | 'jurisdiction'>): Company {
  const empty = Object.fromEntries(fieldNames(COMPANY).map((name) => [name, COMPANY[name].kind === 'list' ? [] : null]));
  return { ...empty, ...fields } as Company;
}

/** One field a shape declares, as found in an object of it: where (list entries by index), and whether it holds a value. */
interface FoundField {
  /** e.g. `previousNames.1.startDate` */
  path: string;
  /** The declared field, list entries without their index: e.g. `previousNames.startDate`. */
  field: string;
  filled: boolean;
}

/**
 * Every field `shape` declares, as found in `value`: an object of the shape
 * as the reader holds it, or as the schema serves it (the names are the
 * same). A field is filled when it holds a value: not null, not missing, and
 * for a list, not empty (the fields of its entries are then found in each).
 */
function foundFields(shape: Shape, value: unknown, at: string[] = [], field: string[] = []): FoundField[] {
  const found: FoundField[] = [];
  const object = (value ?? {}) as Record<string, unknown>;
  for (const name of fieldNames(shape)) {
    const declared = shape[name]!;
    const own = object[name];
    const path = [...at, name];
    const fieldPath = [...field, name];
    const filled = own !== null && own !== undefined && !(Array.isArray(own) && own.length === 0);
    found.push({ path: path.join('.'), field: fieldPath.join('.'), filled });
    if (!filled) continue;
    if (declared.kind === 'object' || declared.kind === 'address') found.push(...foundFields(declared.shape, own, path, fieldPath));
    if (declared.kind === 'list') {
      (own as unknown[]).forEach((entry, index) => {
        found.push(...foundFields(declared.shape, entry, [...path, String(index)], fieldPath));
      });
    }
  }
  return found;
}

/** Where a company as read or served leaves a field the declaration holds empty: null, missing, or an empty list. */
export function emptyDeclaredFields(company: unknown): string[] {
  return foundFields(COMPANY, company)
    .filter((found) => !found.filled)
    .map((found) => found.path);
}

/** The fields the declaration holds, at every depth, that hold a value in at least one of `companies`. */
export function filledDeclaredFields(companies: Iterable<unknown>): Set<string> {
  const filled = new Set<string>();
  for (const company of companies) for (const found of foundFields(COMPANY, company)) if (found.filled) filled.add(found.field);
  return filled;
}

/** Every field the declaration holds, at every depth, list entries' fields without an index: e.g. `previousNames.startDate`. */
export function declaredFields(shape: Shape = COMPANY, at = ''): string[] {
  return fieldNames(shape).flatMap((name) => {
    const field = shape[name]!;
    const path = `${at}${name}`;
    return field.kind === 'object' || field.kind === 'list' || field.kind === 'address'
      ? [path, ...declaredFields(field.shape, `${path}.`)]
      : [path];
  });
}

/** A GraphQL selection of every field the declaration holds, under its own name: what the schema must serve of a company. */
export function declaredSelection(shape: Shape = COMPANY): string {
  const fields = fieldNames(shape).map((name) => {
    const field = shape[name]!;
    return field.kind === 'object' || field.kind === 'list' || field.kind === 'address'
      ? `${name} ${declaredSelection(field.shape)}`
      : name;
  });
  return `{ ${fields.join(' ')} }`;
}
