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
