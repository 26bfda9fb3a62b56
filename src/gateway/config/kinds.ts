import { isIP } from 'node:net';
import { type ApiKey, parseApiKeys } from '../access/api-keys.js';
import { manifestEntries, readTrustedDocuments, type TrustedDocuments } from '../graphql/trusted-documents.js';
import { isOrigin } from '../http/cors.js';
import { describeRedisTarget, parseRedisTarget, type RedisTarget } from '../../shared-state/redis-target.js';

/**
 * What a setting is made of, and the kinds of value settings take. A setting
 * is declared once (settings.ts) with its variable, its kind of value, its
 * default and one line of documentation; reading it, its problem lines, the
 * printed configuration, `--help` and docs/configuration.md all come from that.
 */

/** Why a value was refused: one line per problem, each naming the variable and never quoting a secret. */
export class Refusal {
  readonly problems: readonly string[];

  constructor(...problems: string[]) {
    this.problems = problems;
  }
}

/** A kind of value: how it is read from its text, what the reference says it accepts, and how it is printed. */
export interface Kind<T> {
  /** What it accepts, for the reference and `--help`. */
  readonly accepts: string;
  /** The value of the variable `name`, set to `raw` (trimmed, never blank), or why it is refused. */
  parse(raw: string, name: string): T | Refusal;
  /** A number's unit, so that the reference can give its default in larger units too. */
  readonly unit?: 'ms' | 'bytes';
  /** How a value is printed in the configuration, where not as it is. */
  show?(value: T): unknown;
  /** What of a secret value may be printed; a secret of a kind without it prints as `[redacted]`. */
  redacted?(value: T): unknown;
  /** The most bytes a secret's file may hold, where not MAX_SECRET_FILE_BYTES. */
  readonly maxFileBytes?: number;
  /** The files and folders a value names, which a reload watches (a secret's own file is watched without this). */
  files?(raw: string): string[];
  /** Whether two values are the same, where their JSON is not the whole of them. */
  same?(a: T, b: T): boolean;
  /** What a reload changed, never quoting a secret; without it, `changed`. */
  change?(before: T, after: T): string;
}

/** The value of a setting read before the one asking: a default may follow from settings read earlier. */
export type Read = <T>(setting: Setting<T>) => T;

export interface Setting<T> {
  /** The environment variable. */
  readonly env: string;
  readonly kind: Kind<NonNullable<T>>;
  /** The value when the variable is unset or refused, or how it follows from settings read before this one. */
  readonly default: T | ((read: Read) => T);
  /** The default as the reference states it, where the value cannot: what unset means, or how it follows from others. */
  readonly defaultDoc?: string;
  /** Never printed nor quoted in a problem; may be given in the file that `<env>_FILE` names instead. */
  readonly secret?: boolean;
  /** Read only when this holds; otherwise ignored, as the library that reads it then ignores it. */
  readonly onlyIf?: (read: Read) => boolean;
  /** Read again on SIGHUP and when its file changes, and applied without a restart (src/gateway/reload/). */
  readonly reloads?: boolean;
  /** One line for the reference: what it does. */
  readonly doc: string;
}

/** A setting, its value's type taken from its kind and its default (`undefined` where unset means none). */
export function setting<T, const D extends T | undefined>(declaration: {
  env: string;
  kind: Kind<T>;
  default: D | ((read: Read) => D);
  defaultDoc?: string;
  secret?: boolean;
  onlyIf?: (read: Read) => boolean;
  reloads?: boolean;
  doc: string;
}): Setting<T | D> {
  return declaration as Setting<T | D>;
}

/** The values of a group of declared settings, by the names the configuration gives them. */
export type SettingsOf<Group> = { -readonly [K in keyof Group]: Group[K] extends Setting<infer T> ? T : never };

/** The values of every group of a union of groups, as one type (each group's values, intersected). */
export type SettingsOfAll<Groups> = (Groups extends unknown ? (values: SettingsOf<Groups>) => void : never) extends (
  values: infer All,
) => void
  ? All
  : never;

/** How the number `n` of `unit` reads in a larger unit (`3600000` ms: `1 h`), where one divides it. */
export function inLargerUnit(n: number, unit: 'ms' | 'bytes'): string | undefined {
  const units: [number, string][] =
    unit === 'ms'
      ? [
          [604_800_000, 'week'],
          [3_600_000, 'h'],
          [60_000, 'min'],
          [1_000, 's'],
        ]
      : [
          [1024 * 1024, 'MiB'],
          [1024, 'KiB'],
        ];
  const [size, name] = units.find(([size]) => n >= size && n % size === 0) ?? [];
  return size === undefined ? undefined : `${n / size} ${name}`;
}

// The kinds of value. Each problem line is the one the gateway has always printed: tests and operators' scripts know them.

export function integer(min: number, max: number, unit?: 'ms' | 'bytes'): Kind<number> {
  const range = (n: number) => (unit && inLargerUnit(n, unit) ? `${n} (${inLargerUnit(n, unit)})` : `${n}`);
  return {
    accepts: `whole number${unit === 'ms' ? ' of milliseconds' : unit === 'bytes' ? ' of bytes' : ''}, ${range(min)} to ${range(max)}`,
    unit,
    parse(raw, name) {
      const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
      if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
      return new Refusal(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    },
  };
}

export const boolean: Kind<boolean> = {
  accepts: '`true` or `false`',
  parse: (raw, name) =>
    raw === 'true' || raw === 'false' ? raw === 'true' : new Refusal(`${name} must be true or false, got ${JSON.stringify(raw)}`),
};

export function oneOf<const T extends string>(allowed: readonly T[]): Kind<T> {
  return {
    accepts: allowed.map((value) => `\`${value}\``).join(', '),
    parse: (raw, name) =>
      (allowed as readonly string[]).includes(raw)
        ? (raw as T)
        : new Refusal(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`),
  };
}

/** Any text: a name, an id, a secret. */
export const text: Kind<string> = { accepts: 'text', parse: (raw) => raw };

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export const host: Kind<string> = {
  accepts: 'IP address or host name',
  parse: (raw, name) =>
    isIP(raw) !== 0 || HOSTNAME.test(raw)
      ? raw
      : new Refusal(`${name} must be an IP address or a host name such as 0.0.0.0 or localhost, got ${JSON.stringify(raw)}`),
};

/** A base URL: the value may hold credentials (user:secret@host), so no problem line echoes it. */
export const httpUrl: Kind<URL> = {
  accepts: '`http://` or `https://` URL',
  parse(raw, name) {
    const url = URL.canParse(raw) ? new URL(raw) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return new Refusal(`${name} must be an http:// or https:// URL`);
    if (url.username || url.password || url.search || url.hash) {
      return new Refusal(`${name} must not carry credentials, a query or a fragment; give the base URL only`);
    }
    return url;
  },
  show: (url) => url.href,
};

/** Keys fetched in the clear could be replaced on the way, except over loopback. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export const jwksUrl: Kind<URL> = {
  ...httpUrl,
  accepts: '`https://` URL (`http://` only to localhost)',
  parse(raw, name) {
    const url = httpUrl.parse(raw, name);
    if (url instanceof Refusal || url.protocol === 'https:' || LOOPBACK_HOSTS.includes(url.hostname)) return url;
    return new Refusal(`${name} must be an https:// URL (http:// only to localhost)`);
  },
};

const PARAMETER_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;
/** The parameters every search already sends; a page parameter must not overwrite one. */
const SEARCH_PARAMETERS = ['q', 'jurisdiction', 'pageSize'];

export const pageParameter: Kind<string> = {
  accepts: 'query parameter name',
  parse(raw, name) {
    if (!PARAMETER_NAME.test(raw)) return new Refusal(`${name} must be a query parameter name such as page, got ${JSON.stringify(raw)}`);
    if (SEARCH_PARAMETERS.includes(raw)) return new Refusal(`${name} must not be ${raw}, which the search already sends`);
    return raw;
  },
};

/** Only hashes are kept, and only ids are printed. */
export const apiKeys: Kind<ApiKey[]> = {
  accepts: '`id:key` pairs, separated by commas',
  parse(raw, name) {
    const { keys, problems } = parseApiKeys(name, raw);
    return problems.length === 0 ? keys : new Refusal(...problems);
  },
  redacted: (keys) => keys.map((key) => key.id),
  // Compared key by key: their JSON writes each hash as an array of 32 numbers, megabytes for ten thousand keys.
  same: (a, b) => a.length === b.length && a.every((key, index) => key.id === b[index]!.id && key.sha256.equals(b[index]!.sha256)),
  // Room for some ten thousand keys; a client per key is what the ids are for.
  maxFileBytes: 1024 * 1024,
  change(before, after) {
    const known = new Map(before.map((key) => [key.id, key.sha256]));
    const kept = new Set(after.map((key) => key.id));
    const added = after.filter((key) => !known.has(key.id)).map((key) => key.id);
    const replaced = after.filter((key) => known.has(key.id) && !known.get(key.id)!.equals(key.sha256)).map((key) => key.id);
    const removed = before.filter((key) => !kept.has(key.id)).map((key) => key.id);
    const parts = [listOf('added', added), listOf('new key for', replaced), listOf('removed', removed)];
    return parts.filter((part) => part !== '').join('; ') || 'reordered';
  },
};

function listOf(what: string, ids: string[]): string {
  return ids.length === 0 ? '' : `${what} ${ids.join(', ')}`;
}

export const origins: Kind<string[]> = {
  accepts: '`*`, or origins separated by commas',
  parse(raw, name) {
    const list = raw.split(',').map((origin) => origin.trim());
    const bad = list.filter((origin) => origin !== '*' && !isOrigin(origin));
    if (bad.length === 0) return list;
    return new Refusal(
      `${name} must be * or origins such as https://app.example.com (scheme, host and port, no path), separated by commas; not ${bad.map((origin) => JSON.stringify(origin)).join(', ')}`,
    );
  },
};

/** Read at start, every manifest checked; printed by path and count. */
export const manifests: Kind<TrustedDocuments> = {
  accepts: 'files or folders, separated by commas',
  parse(raw, name) {
    try {
      return readTrustedDocuments(raw);
    } catch (error) {
      return new Refusal(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  },
  show: (documents) => ({ manifests: documents.manifests, documents: documents.documents.size }),
  files: (raw) => manifestEntries(raw),
  // An id is the SHA-256 of its document, checked when read: the same ids are the same documents.
  same: (a, b) => a.documents.size === b.documents.size && [...a.documents.keys()].every((id) => b.documents.has(id)),
  change(before, after) {
    const added = [...after.documents.keys()].filter((id) => !before.documents.has(id)).length;
    const removed = [...before.documents.keys()].filter((id) => !after.documents.has(id)).length;
    return `${added} ${added === 1 ? 'document' : 'documents'} added, ${removed} removed`;
  },
};

/** The value holds the password: no problem line echoes it, and it is printed replaced. */
export const redisUrl: Kind<RedisTarget> = {
  accepts: '`redis://` or `rediss://` URL (one node), `redis-cluster://` or `redis-sentinel://` list of nodes (`rediss-…` for TLS)',
  parse(raw, name) {
    const target = parseRedisTarget(raw, name);
    return typeof target === 'string' ? new Refusal(target) : target;
  },
  redacted: describeRedisTarget,
};

/** No braces: the gateway puts its own hash tags (`{…}`) after the prefix, and a brace in it would take their place. */
export const keyPrefix: Kind<string> = {
  accepts: '1 to 64 printable ASCII characters, no spaces or braces',
  parse: (raw, name) =>
    /^[\x21-\x7a|~]{1,64}$/.test(raw)
      ? raw
      : new Refusal(`${name} must be at most 64 printable ASCII characters without spaces or braces, such as csg:`),
};

/** A sampler's ratio; the tracing SDK would read a bad one as 1 without a word. */
export const ratio: Kind<number> = {
  accepts: 'number from 0 to 1',
  parse(raw, name) {
    const value = /^\d*\.?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    return value >= 0 && value <= 1 ? value : new Refusal(`${name} must be a number from 0 to 1, got ${JSON.stringify(raw)}`);
  },
};

/** The reference's line for a setting: its doc and, where it reloads, when. */
export function docOf(declared: Setting<unknown>): string {
  if (!declared.reloads) return declared.doc;
  const when = declared.secret
    ? `from \`${declared.env}_FILE\`, read again on \`SIGHUP\` and whenever the file changes`
    : 'read again on `SIGHUP` and whenever a file it names changes';
  return `${declared.doc}; ${when}, without a restart`;
}

/** The default as the reference states it. */
export function defaultText(declared: Setting<unknown>): string {
  if (declared.defaultDoc !== undefined) return declared.defaultDoc;
  const value = declared.default;
  if (typeof value === 'function')
    throw new Error(`${declared.env}'s default follows from other settings: its declaration needs a defaultDoc`);
  if (value === undefined) return 'unset';
  const larger = typeof value === 'number' && declared.kind.unit ? inLargerUnit(value, declared.kind.unit) : undefined;
  return `\`${String(value)}\`${larger ? ` (${larger})` : ''}`;
}
