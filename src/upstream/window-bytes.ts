import { companyKey } from './cache-tags.js';
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
 * read from (unless the body ran past the page), and read again
 * (readWindowBody) for a request that needs it: the
 * body is already at hand, where writing the window out costs more than a
 * tenth of a cold request (JSON.stringify or v8.serialize alike, measured in
 * docs/performance.md). A window from the fleet's store is kept in its form
 * there (window-codec.ts).
 *
 * Layout: a header (what the payload is, the page size it was read at, when
 * it was fetched on the gateway's clock and on the wall clock, the lengths of
 * the key and of the companies), the key, the companies it holds as a purge
 * names them (`\n` before and after each `JURISDICTION NUMBER`, the number
 * as companyKey writes it), and the payload. A purge tests the key and the
 * companies without reading the payload.
 */
const AS_SENT = 0;
const AS_ON_REDIS = 1;
const KIND = 0;
const PAGE_SIZE = 1;
const FETCHED_AT = 3;
const FETCHED_AT_WALL = 11;
const KEY_LENGTH = 19;
const COMPANIES_LENGTH = 23;
const HEADER_BYTES = 27;

export function windowBytes(key: string, window: SearchWindow, pageSize: number): Buffer {
  const [kind, payload] = window.body === undefined ? [AS_ON_REDIS, encodeWindow(key, window)] : [AS_SENT, window.body];
  const companies = companiesHeld(window);
  const keyBytes = Buffer.byteLength(key);
  const companiesBytes = Buffer.byteLength(companies);
  // Allocated at its exact length, never from Node's shared pool: the bytes held are the bytes counted.
  const bytes = Buffer.allocUnsafeSlow(HEADER_BYTES + keyBytes + companiesBytes + Buffer.byteLength(payload));
  bytes.writeUInt8(kind, KIND);
  bytes.writeUInt16LE(pageSize, PAGE_SIZE);
  bytes.writeDoubleLE(window.fetchedAt, FETCHED_AT);
  bytes.writeDoubleLE(window.fetchedAtWall, FETCHED_AT_WALL);
  bytes.writeUInt32LE(keyBytes, KEY_LENGTH);
  bytes.writeUInt32LE(companiesBytes, COMPANIES_LENGTH);
  bytes.write(key, HEADER_BYTES);
  bytes.write(companies, HEADER_BYTES + keyBytes);
  bytes.write(payload, HEADER_BYTES + keyBytes + companiesBytes);
  return bytes;
}

/** The companies of `window` as the bytes list them; a jurisdiction holds no space and a companyKey no newline. */
function companiesHeld(window: SearchWindow): string {
  const held = ['\n'];
  for (const company of window.slots) if (company !== null) held.push(company.jurisdiction, ' ', companyKey(company.companyNumber), '\n');
  return held.join('');
}

/** The search key `bytes` were written for. */
export function keyOfWindowBytes(bytes: Buffer): string {
  return bytes.toString('utf8', HEADER_BYTES, HEADER_BYTES + bytes.readUInt32LE(KEY_LENGTH));
}

/** Whether the window in `bytes` holds the company numbered `number` (as companyKey writes it) in `jurisdiction`. */
export function windowBytesHoldCompany(bytes: Buffer, jurisdiction: string, number: string): boolean {
  const start = HEADER_BYTES + bytes.readUInt32LE(KEY_LENGTH);
  return bytes.subarray(start, start + bytes.readUInt32LE(COMPANIES_LENGTH)).includes(`\n${jurisdiction} ${number}\n`);
}

/**
 * The window `bytes` hold for the search `key` in `jurisdiction`, read back
 * without the checks a window from Redis gets (decodeWindow): this process
 * wrote them from a body or a window it had read and checked. Undefined when
 * they are for another key.
 */
export function windowFromBytes(bytes: Buffer, key: string, jurisdiction: string): SearchWindow | undefined {
  const keyEnd = HEADER_BYTES + bytes.readUInt32LE(KEY_LENGTH);
  if (bytes.toString('utf8', HEADER_BYTES, keyEnd) !== key) return undefined;
  const payload = bytes.toString('utf8', keyEnd + bytes.readUInt32LE(COMPANIES_LENGTH));
  const fetchedAt = bytes.readDoubleLE(FETCHED_AT);
  const fetchedAtWall = bytes.readDoubleLE(FETCHED_AT_WALL);
  if (bytes.readUInt8(KIND) === AS_SENT) {
    const where = 'a window the search cache kept';
    const { read, repeated } = readWindowBody(payload, jurisdiction, where, bytes.readUInt16LE(PAGE_SIZE));
    const kept = repeated.length > 0 ? repeated : NO_REPEATS;
    return { slots: read.slots, repeated: kept, total: read.total, fetchedAt, fetchedAtWall, body: payload };
  }
  const stored = JSON.parse(payload) as SearchWindow;
  for (const company of stored.slots) if (company !== null) reviveDates(COMPANY, company);
  const repeated = stored.repeated.length === 0 ? NO_REPEATS : stored.repeated;
  return { slots: stored.slots, repeated, total: stored.total, fetchedAt, fetchedAtWall };
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
