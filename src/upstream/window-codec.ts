import { z } from 'zod';
import { COMPANY, type Company, type Field, fieldNames, type Shape } from './company.js';
import { type ValueField, valueCheck } from './field-checks.js';
import { NO_REPEATS, type SearchWindow } from './window-size.js';

/** Longest stored window read: an upstream body is refused past 1 MiB, and a window holds less than its body. */
export const MAX_STORED_WINDOW_LENGTH = 1024 * 1024;

const invalid = z.record(z.string(), z.string()).optional();

/**
 * A value as the reader keeps it, checked as the reader checks the upstream's
 * (field-checks.ts): the same caps, formats and ranges, so a
 * window any instance wrote reads back whole, and one no reader could have
 * made is no window.
 */
function valueSchema(field: ValueField): z.ZodType {
  const accepts = valueCheck(field);
  if (field.kind === 'dateTime') {
    // Stored as Date's JSON writes it (a year past 9999 too), read back as a Date.
    return z
      .string()
      .max(field.maxLength)
      .transform((value) => new Date(value))
      .pipe(z.date());
  }
  const check = z.custom((value) => accepts(value) !== null);
  return field.kind === 'jurisdiction' || (field.kind === 'text' && field.required) ? check : check.nullable();
}

function fieldSchema(field: Field): z.ZodType {
  switch (field.kind) {
    case 'object':
    case 'address':
      return shapeSchema(field.shape).nullable();
    case 'list':
      return z.array(shapeSchema(field.shape)).max(field.maxItems);
    case 'dateTime':
      return valueSchema(field).nullable();
    default:
      return valueSchema(field);
  }
}

function shapeSchema(shape: Shape) {
  return z.object({ ...Object.fromEntries(fieldNames(shape).map((name) => [name, fieldSchema(shape[name]!)])), invalid });
}

/** Every field of the declaration, as the reader holds it: nothing declared can be read and then lost on the way through Redis. */
const companySchema = shapeSchema(COMPANY) as unknown as z.ZodType<Company>;

function buildSchema(pageSize: number) {
  return z.object({
    key: z.string(),
    slots: z.array(companySchema.nullable()).max(pageSize),
    repeated: z
      .array(
        z
          .int()
          .min(0)
          .max(pageSize - 1),
      )
      .max(pageSize),
    total: z
      .int()
      .min(0)
      .max(2 ** 31 - 1),
    fetchedAt: z.number().finite(),
  });
}

const schemas = new Map<number, ReturnType<typeof buildSchema>>();

/** Built once per page size (there is one), not once per read. */
function storedWindowSchema(pageSize: number): ReturnType<typeof buildSchema> {
  let schema = schemas.get(pageSize);
  if (schema === undefined) {
    schema = buildSchema(pageSize);
    schemas.set(pageSize, schema);
  }
  return schema;
}

/**
 * A window as stored for the other instances: the key it is for goes with it, so a value can never stand in for
 * another search. Its `fetchedAt` goes with it as every release reads it, but means nothing on another instance's
 * clock: a reader dates the window by the age the store keeps beside it (shared-windows.ts).
 */
export function encodeWindow(key: string, window: SearchWindow): string {
  return JSON.stringify({ key, slots: window.slots, repeated: window.repeated, total: window.total, fetchedAt: window.fetchedAt });
}

/**
 * A stored window read as carefully as an upstream payload: anything too
 * long, not JSON, of another shape or for another key is no window (a miss).
 */
export function decodeWindow(raw: string, key: string, pageSize: number): Omit<SearchWindow, 'fetchedAt' | 'fetchedAtWall'> | undefined {
  if (raw.length > MAX_STORED_WINDOW_LENGTH) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const read = storedWindowSchema(pageSize).safeParse(parsed);
  if (!read.success || read.data.key !== key) return undefined;
  const { slots, repeated, total } = read.data;
  return { slots, repeated: repeated.length === 0 ? NO_REPEATS : repeated, total };
}
