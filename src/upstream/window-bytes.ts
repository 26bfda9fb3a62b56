import { COMPANY, type Company, fieldNames, type Shape } from './company.js';
import { encodeWindow } from './window-codec.js';
import { readWindowBody } from './window-reading.js';
import { NO_REPEATS, type SearchWindow } from './window-size.js';

/**
 * A window as the search cache holds it: bytes in a buffer of their own,
 * exactly as long, which the garbage collector sees as one object where the
 * window's results, once read, are thousands, and whose size is their length.
 *
 * A window this instance read from the upstream is kept as the body it was
 * read from, and read again (readWindowBody) for a request that needs it: the
 * body is already at hand, where writing the window out costs more than a
 * tenth of a cold request (JSON.stringify or v8.serialize alike, measured in
 * docs/performance.md). A window from the fleet's store is kept in its form
 * there (window-codec.ts).
 *
 * Layout: a header (what the payload is, the page size it was read at, when
 * it was fetched, the key's length), the key, and the payload.
 */
const AS_SENT = 0;
const AS_ON_REDIS = 1;
const HEADER_BYTES = 1 + 2 + 8 + 4;

export function windowBytes(key: string, window: SearchWindow, pageSize: number): Buffer {
  const [kind, payload] = window.body === undefined ? [AS_ON_REDIS, encodeWindow(key, window)] : [AS_SENT, window.body];
  const keyBytes = Buffer.byteLength(key);
  // Allocated at its exact length, never from Node's shared pool: the bytes held are the bytes counted.
  const bytes = Buffer.allocUnsafeSlow(HEADER_BYTES + keyBytes + Buffer.byteLength(payload));
  bytes.writeUInt8(kind, 0);
  bytes.writeUInt16LE(pageSize, 1);
  bytes.writeDoubleLE(window.fetchedAt, 3);
  bytes.writeUInt32LE(keyBytes, 11);
  bytes.write(key, HEADER_BYTES);
  bytes.write(payload, HEADER_BYTES + keyBytes);
  return bytes;
}

/**
 * The window `bytes` hold for the search `key` in `jurisdiction`, read back
 * without the checks a window from Redis gets (decodeWindow): this process
 * wrote them from a body or a window it had read and checked. Undefined when
 * they are for another key.
 */
export function windowFromBytes(bytes: Buffer, key: string, jurisdiction: string): SearchWindow | undefined {
  const keyEnd = HEADER_BYTES + bytes.readUInt32LE(11);
  if (bytes.toString('utf8', HEADER_BYTES, keyEnd) !== key) return undefined;
  const payload = bytes.toString('utf8', keyEnd);
  const fetchedAt = bytes.readDoubleLE(3);
  if (bytes.readUInt8(0) === AS_SENT) {
    const { read, repeated } = readWindowBody(payload, jurisdiction, 'a window the search cache kept', bytes.readUInt16LE(1));
    return { slots: read.slots, repeated: repeated.length > 0 ? repeated : NO_REPEATS, total: read.total, fetchedAt, body: payload };
  }
  const stored = JSON.parse(payload) as SearchWindow;
  for (const company of stored.slots) if (company !== null) reviveDates(COMPANY, company);
  return { slots: stored.slots, repeated: stored.repeated.length === 0 ? NO_REPEATS : stored.repeated, total: stored.total, fetchedAt };
}

/** The declaration's date-times, which JSON writes as strings, made Dates again, in place. */
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
