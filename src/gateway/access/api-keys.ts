import { hash, timingSafeEqual } from 'node:crypto';

/** The request header a client sends its API key in. */
export const API_KEY_HEADER = 'x-api-key';
/** Shortest key accepted in GATEWAY_API_KEYS, e.g. `openssl rand -hex 32` gives 64 characters. */
export const MIN_API_KEY_LENGTH = 32;

const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** A configured key: its id (used in logs and rate limits) and only the SHA-256 of the key itself. */
export interface ApiKey {
  id: string;
  sha256: Buffer;
}

/** Runs on every request that presents a key; the one-shot hash costs about half of a Hash object's. */
export function hashApiKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/**
 * Reads `id:key,id:key`. Problems name entries by position and id, never by
 * key, since the value is a secret.
 */
export function parseApiKeys(name: string, raw: string): { keys: ApiKey[]; problems: string[] } {
  const keys: ApiKey[] = [];
  const problems: string[] = [];
  raw.split(',').forEach((entry, index) => {
    const position = `${name} entry ${index + 1}`;
    const separator = entry.indexOf(':');
    const id = separator < 0 ? '' : entry.slice(0, separator).trim();
    const key = separator < 0 ? '' : entry.slice(separator + 1).trim();
    if (separator < 0) {
      problems.push(
        `${position} must be id:key: a name for the client (used in logs and rate limits), a colon, then the key, such as web:<the output of openssl rand -hex 32>`,
      );
    } else if (!KEY_ID.test(id)) {
      problems.push(`${position} has an id that is not 1 to 64 letters, digits, '_', '.' or '-'`);
    } else if (key.length < MIN_API_KEY_LENGTH) {
      problems.push(`${position} (${id}) has a key shorter than ${MIN_API_KEY_LENGTH} characters`);
    } else if (keys.some((known) => known.id === id)) {
      problems.push(`${position} repeats the id ${id}`);
    } else {
      const sha256 = hashApiKey(key);
      if (keys.some((known) => known.sha256.equals(sha256))) problems.push(`${position} (${id}) repeats the key of another entry`);
      else keys.push({ id, sha256 });
    }
  });
  return { keys, problems };
}

/**
 * The id of the configured key matching `presented`, or undefined. Hashing
 * first gives equal lengths for timingSafeEqual, and every stored hash is
 * compared, so the time taken says nothing about which key (if any) matched.
 */
export function matchApiKey(keys: readonly ApiKey[], presented: string): string | undefined {
  const hash = hashApiKey(presented);
  let match: string | undefined;
  for (const key of keys) {
    if (timingSafeEqual(hash, key.sha256) && match === undefined) match = key.id;
  }
  return match;
}
