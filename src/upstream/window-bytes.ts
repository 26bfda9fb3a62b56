import { COMPANY, type Company, fieldNames, type Shape } from './company.js';
import { encodeWindow } from './window-codec.js';
import { NO_REPEATS, type SearchWindow } from './window-size.js';

/**
 * A window as the search cache holds it: the bytes of its form on Redis
 * (window-codec.ts, its key included), in a buffer of their own. Held as
 * bytes, a cached window is one object to the garbage collector instead of
 * the thousands its results are once read, and its size is its byte length.
 */
export function windowBytes(key: string, window: SearchWindow): Buffer {
  const text = encodeWindow(key, window);
  // Allocated at its exact length, never from Node's shared pool: the bytes held are the bytes counted.
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/**
 * The window `bytes` hold, read back without the checks a window from Redis
 * gets (decodeWindow): this process wrote them from a window it had read
 * and checked. Undefined when they are for another key.
 */
export function windowFromBytes(bytes: Buffer, key: string): SearchWindow | undefined {
  const stored = JSON.parse(bytes.toString('utf8')) as SearchWindow & { key: string };
  if (stored.key !== key) return undefined;
  for (const company of stored.slots) if (company !== null) reviveDates(COMPANY, company);
  return {
    slots: stored.slots,
    repeated: stored.repeated.length === 0 ? NO_REPEATS : stored.repeated,
    total: stored.total,
    fetchedAt: stored.fetchedAt,
  };
}

/** The declaration's date-times, written by JSON as strings, made Dates again, in place. */
function reviveDates(shape: Shape, object: Company | Record<string, unknown>): void {
  const values = object as Record<string, unknown>;
  for (const name of fieldNames(shape)) {
    const field = shape[name]!;
    const value = values[name];
    if (value === null || value === undefined) continue;
    if (field.kind === 'dateTime') values[name] = new Date(value as string);
    else if (field.kind === 'object' || field.kind === 'address') reviveDates(field.shape, value as Record<string, unknown>);
    else if (field.kind === 'list') for (const item of value as Record<string, unknown>[]) reviveDates(field.shape, item);
  }
}
