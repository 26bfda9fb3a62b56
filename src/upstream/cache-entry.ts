import { createHash, hash } from 'node:crypto';

/**
 * What each entry of the gateway's caches holds besides its bytes, charged
 * to every entry at the same figure: the Buffer and ArrayBuffer objects on
 * the heap, V8's record of the bytes outside it and malloc's headers,
 * lru-cache's slots for the entry, its key (a digest, the same length for
 * every entry: entryKey) and, for an answer, its content type. An entry is
 * counted at its bytes, exactly, plus this: a cache of many small entries
 * still holds no more than its bound. test/upstream/cache-entry.test.ts
 * fills the caches with the smallest entries and checks the process's memory
 * against what they count.
 */
export const CACHE_ENTRY_BYTES = 864;

/** What a cache counts for an entry whose bytes are `bytes`: those bytes, and CACHE_ENTRY_BYTES. */
export function entryBytes(bytes: Buffer): number {
  return bytes.byteLength + CACHE_ENTRY_BYTES;
}

/**
 * The key a cache files an entry under: the SHA-256 of `parts`, one after
 * another, in base64, 44 characters whatever their length, so that a long key
 * (a long search, a long Accept header) costs no more than CACHE_ENTRY_BYTES.
 * Two texts share one only if SHA-256 collides, which nobody knows how to
 * make it do.
 */
export function entryKey(...parts: (string | Buffer)[]): string {
  if (parts.length === 1) return hash('sha256', parts[0]!, 'base64');
  // The digest of the parts one after another, without copying them into one buffer first.
  const digest = createHash('sha256');
  for (const part of parts) digest.update(part);
  return digest.digest('base64');
}

/**
 * `bytes` in a buffer of its own, exactly as long: Node serves small Buffers
 * as views of a shared 8 KiB pool, which a cache would keep whole for a few
 * bytes of it.
 */
export function ownedBytes(bytes: Buffer): Buffer {
  // Not Buffer.copyBytesFrom: it serves small copies from the same shared pool.
  return bytes.byteLength === bytes.buffer.byteLength ? bytes : Buffer.from(new Uint8Array(bytes).buffer);
}
