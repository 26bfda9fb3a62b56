import { deserialize, serialize } from 'node:v8';
import { NO_REPEATS, type SearchWindow } from './window-size.js';

/** What the bytes hold: the window, and the key it is for. */
interface StoredWindow extends SearchWindow {
  key: string;
}

/**
 * A window as the search cache holds it: V8's serialization of the window
 * and its key, in a buffer of its own. Held as bytes, a cached window is one
 * object to the garbage collector instead of the thousands its results are
 * once read, and its size is its byte length. V8's form over the JSON of the
 * window's form on Redis (window-codec.ts): it writes Dates as numbers where
 * JSON calls each one's toJSON, which made JSON about twice the CPU per
 * window (docs/performance.md).
 */
export function windowBytes(key: string, window: SearchWindow): Buffer {
  const stored: StoredWindow = { key, slots: window.slots, repeated: window.repeated, total: window.total, fetchedAt: window.fetchedAt };
  const serialized = serialize(stored);
  // The serializer's buffer grows by doubling: copied to one exactly as long, so that the bytes held are the bytes counted.
  const bytes = Buffer.allocUnsafeSlow(serialized.byteLength);
  serialized.copy(bytes);
  return bytes;
}

/**
 * The window `bytes` hold, read back without the checks a window from Redis
 * gets (decodeWindow): this process wrote them from a window it had read
 * and checked. Undefined when they are for another key.
 */
export function windowFromBytes(bytes: Buffer, key: string): SearchWindow | undefined {
  const stored = deserialize(bytes) as StoredWindow;
  if (stored.key !== key) return undefined;
  return {
    slots: stored.slots,
    repeated: stored.repeated.length === 0 ? NO_REPEATS : stored.repeated,
    total: stored.total,
    fetchedAt: stored.fetchedAt,
  };
}
