import { hash } from 'node:crypto';

/** The request header a client sends its API key in. */
export const API_KEY_HEADER = 'x-api-key';
/** Shortest key accepted in GATEWAY_API_KEYS, e.g. `openssl rand -hex 32` gives 64 characters. */
export const MIN_API_KEY_LENGTH = 32;

const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;
/**
 * No request can present a key holding one: a file listing `id:key` a line each
 * read as one entry, its first id with a key made of every line, and no client
 * matched.
 */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** A configured key: its id (used in logs and rate limits) and only the SHA-256 of the key itself. */
export interface ApiKey {
  id: string;
  sha256: Buffer;
}

/** Runs on every request that presents a key: the one-shot hash, which spares making a Hash object. */
export function hashApiKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/**
 * Reads `id:key,id:key`. Problems name entries by position and id, never by
 * key, since the value is a secret. Repeated ids and keys are found in sets,
 * so that reading is linear in the entries: it runs on the event loop, at
 * start and on every reload, and a file may hold some fourteen thousand keys.
 */
export function parseApiKeys(name: string, raw: string): { keys: ApiKey[]; problems: string[] } {
  const keys: ApiKey[] = [];
  const problems: string[] = [];
  const ids = new Set<string>();
  const digests = new Set<string>();
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
    } else if (CONTROL_CHARACTER.test(key)) {
      problems.push(
        `${position} (${id}) has a key holding a line break or another control character, which no X-Api-Key header can carry; separate entries with commas`,
      );
    } else if (key.length < MIN_API_KEY_LENGTH) {
      problems.push(`${position} (${id}) has a key shorter than ${MIN_API_KEY_LENGTH} characters`);
    } else if (ids.has(id)) {
      problems.push(`${position} repeats the id ${id}`);
    } else {
      const sha256 = hashApiKey(key);
      const digest = sha256.toString('base64');
      if (digests.has(digest)) {
        problems.push(`${position} (${id}) repeats the key of another entry`);
      } else {
        ids.add(id);
        digests.add(digest);
        keys.push({ id, sha256 });
      }
    }
  });
  return { keys, problems };
}

/**
 * Finds the configured key a client presents by its SHA-256, looked up in a
 * map: the work per request is the same whether one key or fourteen thousand
 * are configured, so a stream of wrong keys costs no more with many. The
 * lookup is not constant-time, and need not be: what a wrong key's timing
 * could tell at most is how much of a stored digest some other digest shares,
 * and no digest leads back to a key (SHA-256 has no known preimage attack).
 *
 * A key that matched is also remembered as presented: a client sends the same
 * key on every request, and its SHA-256 costs more than the rest of an answer
 * from the response cache. Only keys that matched a configured one are
 * remembered, so the memo holds at most one entry per configured key,
 * whatever clients send; a key not remembered is hashed and looked up. Both
 * maps live in this process's memory only, as the keys' setting itself does,
 * and are never logged.
 */
export class ApiKeyMatcher {
  readonly #byDigest: Map<string, string>;
  readonly #matched = new Map<string, string>();

  constructor(keys: readonly ApiKey[]) {
    this.#byDigest = new Map(keys.map((key) => [key.sha256.toString('base64'), key.id]));
  }

  /** The id of the configured key matching `presented`, or undefined. */
  match(presented: string): string | undefined {
    const known = this.#matched.get(presented);
    if (known !== undefined) return known;
    const id = this.#byDigest.get(hashApiKey(presented).toString('base64'));
    if (id !== undefined) this.#matched.set(presented, id);
    return id;
  }

  /** Keys remembered now: at most one per configured key. */
  get remembered(): number {
    return this.#matched.size;
  }
}
