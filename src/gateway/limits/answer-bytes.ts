/**
 * The bytes `JSON.stringify(value)` would write, in UTF-8, counted without
 * writing them, and only as far as `limit`: once the count passes it, it stops
 * and answers a number above `limit`. So measuring an answer costs at most
 * what its first `limit` bytes cost, however large the answer would be. The
 * values are those of a GraphQL result: objects, arrays, strings, finite
 * numbers, booleans and null (a result holds nothing else), each counted as
 * JSON writes it.
 */
export function jsonBytesWithin(value: unknown, limit: number): number {
  const counter = { bytes: 0, limit };
  count(value, counter);
  return counter.bytes;
}

interface Counter {
  bytes: number;
  readonly limit: number;
}

/** Adds `value`'s bytes to the count; false once the count has passed its limit. */
function count(value: unknown, counter: Counter): boolean {
  switch (typeof value) {
    case 'string':
      counter.bytes += stringBytes(value);
      break;
    case 'number':
      counter.bytes += Number.isFinite(value) ? String(value).length : 4;
      break;
    case 'boolean':
      counter.bytes += value ? 4 : 5;
      break;
    case 'object':
      if (value === null) counter.bytes += 4;
      else if (Array.isArray(value)) return countArray(value, counter);
      else return countObject(value as Record<string, unknown>, counter);
      break;
    default:
      // undefined, functions and symbols: JSON leaves them out of objects and writes null in arrays; a result holds none.
      counter.bytes += 4;
  }
  return counter.bytes <= counter.limit;
}

function countArray(array: readonly unknown[], counter: Counter): boolean {
  // The brackets and a comma between entries.
  counter.bytes += 2 + Math.max(0, array.length - 1);
  for (const entry of array) if (!count(entry, counter)) return false;
  return counter.bytes <= counter.limit;
}

function countObject(object: Record<string, unknown>, counter: Counter): boolean {
  if (typeof object.toJSON === 'function') return count(object.toJSON(), counter);
  let fields = 0;
  counter.bytes += 2;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const value = object[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    // The key, its colon, and the comma before every field but the first.
    counter.bytes += stringBytes(key) + 1 + (fields > 0 ? 1 : 0);
    fields += 1;
    if (!count(value, counter)) return false;
  }
  return counter.bytes <= counter.limit;
}

/** Printable ASCII but the quote and the backslash: one byte each in JSON, as most strings of an answer are. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as JSON writes it: quoted, escaped, in UTF-8. */
function stringBytes(text: string): number {
  if (PLAIN.test(text)) return text.length + 2;
  let bytes = 2;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x20) bytes += code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      // A pair: one code point of four bytes.
      bytes += 4;
      index += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
