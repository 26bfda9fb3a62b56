import { z } from 'zod';
import type { Company } from './company.js';
import { MAX_PREVIOUS_NAMES } from './search-response.js';
import { NO_REPEATS, type SearchWindow } from './window-size.js';

/** Longest stored window read: an upstream body is refused past 1 MiB, and a window holds less than its body. */
export const MAX_STORED_WINDOW_LENGTH = 1024 * 1024;

// No cap per string: the upstream's parser sets none, and a window it cannot read back is fetched anew by every
// instance. MAX_STORED_WINDOW_LENGTH bounds the whole.
const text = z.string();
const nullableText = text.nullable();
const invalid = z.record(text, text).optional();

const companySchema = z.object({
  name: text.min(1),
  companyNumber: text.min(1),
  jurisdiction: text,
  status: nullableText,
  address: z
    .object({
      formatted: nullableText,
      streetLine1: nullableText,
      streetLine2: nullableText,
      city: nullableText,
      region: nullableText,
      postcode: nullableText,
      country: nullableText,
      latitude: z.number().min(-90).max(90).nullable(),
      longitude: z.number().min(-180).max(180).nullable(),
      invalid,
    })
    .nullable(),
  // Any date the upstream's parser took, as Date's JSON writes it (a year past 9999 too).
  incorporatedDate: z
    .string()
    .max(64)
    .transform((value) => new Date(value))
    .pipe(z.date())
    .nullable(),
  isPlatformMember: z.boolean().nullable(),
  previousNames: z.array(z.object({ name: text.min(1), startDate: nullableText, endDate: nullableText, invalid })).max(MAX_PREVIOUS_NAMES),
  avatar: z.object({ image: nullableText, initials: nullableText, invalid }).nullable(),
  invalid,
});

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

/** A window as stored for the other instances: the key it is for goes with it, so a value can never stand in for another search. */
export function encodeWindow(key: string, window: SearchWindow): string {
  return JSON.stringify({ key, slots: window.slots, repeated: window.repeated, total: window.total, fetchedAt: window.fetchedAt });
}

/**
 * A stored window read as carefully as an upstream payload: anything too
 * long, not JSON, of another shape or for another key is no window (a miss).
 */
export function decodeWindow(raw: string, key: string, pageSize: number): SearchWindow | undefined {
  if (raw.length > MAX_STORED_WINDOW_LENGTH) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const read = storedWindowSchema(pageSize).safeParse(parsed);
  if (!read.success || read.data.key !== key) return undefined;
  const { slots, repeated, total, fetchedAt } = read.data;
  return { slots: slots as (Company | null)[], repeated: repeated.length === 0 ? NO_REPEATS : repeated, total, fetchedAt };
}
