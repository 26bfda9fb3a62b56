/**
 * What plain data holds on the V8 heap, as Node 20 lays it out on 64-bit
 * machines (8-byte words, no pointer compression), for the caches to count
 * entries by what they really hold and not by the bytes they came from.
 *
 * Hand-written: object-sizeof and its like count characters and number bytes
 * but no object headers, property slots or a collection's bookkeeping, which
 * are most of what a small entry holds (an empty search window holds many
 * times the bytes of its JSON).
 *
 * The layouts are V8's (objects, arrays, strings, heap numbers, dates); the
 * figures they add up to are checked by scripts/calibrate-cache-sizes.ts,
 * which fills the caches under --expose-gc and compares the heap they take
 * with these estimates (its latest output, with its date, is in
 * docs/behaviour.md, *What the caches count*).
 */

const WORD_BYTES = 8;
/** Map, properties and elements pointers. */
export const OBJECT_HEADER_BYTES = 3 * WORD_BYTES;
/** An object's header and its length. */
const ARRAY_HEADER_BYTES = 4 * WORD_BYTES;
/** Map and length of an array's elements, or of an object's out-of-object properties. */
const STORE_HEADER_BYTES = 2 * WORD_BYTES;
/** Map, hash and length. */
const STRING_HEADER_BYTES = 2 * WORD_BYTES;
/** A number that is not a small integer, or any number in a field that has held one. */
export const HEAP_NUMBER_BYTES = 2 * WORD_BYTES;
/** A Date: header, time value, seven cached calendar fields and a cache stamp. */
const DATE_BYTES = OBJECT_HEADER_BYTES + 9 * WORD_BYTES + HEAP_NUMBER_BYTES;
/** Room an empty object literal (`{}`) is given before it needs a property store. */
const EMPTY_LITERAL_SLOTS = 4;
/** The out-of-object property store an object gets once its room is full: it grows three slots at a time. */
const PROPERTY_STORE_BYTES = STORE_HEADER_BYTES + 3 * WORD_BYTES;

/**
 * One entry of an lru-cache with a byte bound and TTLs: its Map entry (three
 * words and half a bucket, in a table at least half full after it grows) and
 * one slot in each of its seven arrays (keys, values, next, previous, sizes,
 * starts, TTLs), which grow by half again when full.
 *
 * Not counted: lru-cache never shrinks those arrays, so once many small
 * entries have given way to a few large ones, the room the small ones had
 * (a slot in each array) stays held. A bounded remainder: at most the bound
 * divided by the smallest entry, times a slot in each array.
 */
export const LRU_ENTRY_BYTES = 2 * (3.5 * WORD_BYTES) + 7 * 1.5 * WORD_BYTES;

/**
 * A Buffer with an ArrayBuffer of its own, besides its bytes: the two heap
 * objects and, outside the heap, V8's record of the bytes and its extension,
 * with malloc's headers (checked by scripts/calibrate-cache-sizes.ts).
 */
const BUFFER_OVERHEAD_BYTES = 400;
/** Above SMALL_BUFFER_BYTES malloc's arenas hold a buffer with more overhead than that (checked by scripts/calibrate-cache-sizes.ts). */
const LARGER_BUFFER_OVERHEAD_BYTES = 700;
const SMALL_BUFFER_BYTES = 1_024;
/** malloc hands out memory in steps of this many bytes. */
const MALLOC_STEP_BYTES = 16;

// Without the u flag a class matches UTF-16 code units: any above 0xff makes V8 store the string two bytes a character.
const TWO_BYTE_CHARACTER = /[\u0100-\uffff]/;

/** Heap objects take whole words. */
function aligned(bytes: number): number {
  return Math.ceil(bytes / WORD_BYTES) * WORD_BYTES;
}

/** A flat string: one byte a character when all are Latin-1, two otherwise. */
export function stringBytes(value: string): number {
  const perCharacter = TWO_BYTE_CHARACTER.test(value) ? 2 : 1;
  return aligned(STRING_HEADER_BYTES + perCharacter * value.length);
}

/** A Buffer that owns its ArrayBuffer (not a view of Node's shared pool), bytes included. */
export function bufferBytes(byteLength: number): number {
  const overhead = byteLength > SMALL_BUFFER_BYTES ? LARGER_BUFFER_OVERHEAD_BYTES : BUFFER_OVERHEAD_BYTES;
  return overhead + Math.ceil(byteLength / MALLOC_STEP_BYTES) * MALLOC_STEP_BYTES;
}

/** An array created with its length (`Array.prototype.map`, `new Array(n)`), without its items. */
export function exactArrayBytes(length: number): number {
  return ARRAY_HEADER_BYTES + (length === 0 ? 0 : STORE_HEADER_BYTES + WORD_BYTES * length);
}

/**
 * An array filled by push, without its items: V8 gives it room for 17 on the
 * first push and grows it to 1.5 × its length + 16 when full, so it is
 * counted at the largest room it can have for its length.
 */
function pushedArrayBytes(length: number): number {
  if (length === 0) return ARRAY_HEADER_BYTES;
  let room = 0;
  while (room < length) room = room + 1 + ((room + 1) >> 1) + 16;
  return ARRAY_HEADER_BYTES + STORE_HEADER_BYTES + WORD_BYTES * room;
}

/**
 * An object with `keys` properties, without their values. A literal holds its
 * properties in the object, with room for one more after a spread; properties
 * added later go to a property store. Which of the two an object has cannot be
 * seen from JavaScript, so one with more than an empty literal's room is
 * counted as having both: never less than it holds (3 words more at most).
 */
export function objectBytes(keys: number): number {
  return OBJECT_HEADER_BYTES + WORD_BYTES * Math.max(keys, EMPTY_LITERAL_SLOTS) + (keys > EMPTY_LITERAL_SLOTS ? PROPERTY_STORE_BYTES : 0);
}

/**
 * Parsed JSON data as the gateway keeps it: strings, numbers, booleans, null,
 * Dates, arrays and plain objects, as a tree (nothing reached twice). Linear in
 * its size; recursive, so only for data whose depth the gateway's own reader
 * fixed, never for a payload as received.
 */
export function parsedDataBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'number':
      return HEAP_NUMBER_BYTES;
    case 'object':
      break;
    default:
      // Booleans and undefined are V8's shared constants: only the slot holding them, counted by its owner.
      return 0;
  }
  if (value === null) return 0;
  if (value instanceof Date) return DATE_BYTES;
  if (Array.isArray(value)) {
    let bytes = pushedArrayBytes(value.length);
    for (const item of value) bytes += parsedDataBytes(item);
    return bytes;
  }
  let keys = 0;
  let bytes = 0;
  for (const item of Object.values(value)) {
    keys++;
    bytes += parsedDataBytes(item);
  }
  return bytes + objectBytes(keys);
}
