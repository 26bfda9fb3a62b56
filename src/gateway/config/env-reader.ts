import { isIP } from 'node:net';

export type Env = Readonly<Record<string, string | undefined>>;

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Reads one variable at a time, recording a precise problem for each bad
 * value and carrying on, so that one start names every problem at once.
 * Checks that belong to one feature live with that feature's settings and
 * record their problems here with `problem` or `refuse`.
 *
 * A refused value is reported once, by its own line: checks of other
 * settings against it are skipped (`refused`), since they would judge the
 * default in its place and contradict what the user set.
 */
export class EnvReader {
  readonly problems: string[] = [];
  readonly #refused = new Set<string>();

  constructor(private readonly env: Env) {}

  /** A problem of several settings together, or of one that is missing. */
  problem(message: string): void {
    this.problems.push(message);
  }

  /** A problem with the value `name` was set to. */
  refuse(name: string, message: string): void {
    this.#refused.add(name);
    this.problems.push(message);
  }

  /** Whether any of these variables was set to a value that was refused. */
  refused(...names: string[]): boolean {
    return names.some((name) => this.#refused.has(name));
  }

  /** Whether the variable was set, to a valid value or not. */
  given(name: string): boolean {
    return this.string(name) !== undefined;
  }

  /** A set, non-blank value, trimmed; blank counts as unset. */
  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  host(name: string): string | undefined {
    const raw = this.string(name);
    if (raw === undefined || isIP(raw) !== 0 || HOSTNAME.test(raw)) return raw;
    this.refuse(name, `${name} must be an IP address or a host name such as 0.0.0.0 or localhost, got ${JSON.stringify(raw)}`);
    return undefined;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      this.refuse(name, `${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return value;
  }

  url(name: string): URL | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const url = URL.canParse(raw) ? new URL(raw) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      // The value may hold credentials (user:secret@host), so it is not echoed.
      this.refuse(name, `${name} must be an http:// or https:// URL`);
      return undefined;
    }
    if (url.username || url.password || url.search || url.hash) {
      this.refuse(name, `${name} must not carry credentials, a query or a fragment; give the base URL only`);
      return undefined;
    }
    return url;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    this.refuse(name, `${name} must be true or false, got ${JSON.stringify(raw)}`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.refuse(name, `${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
    return fallback;
  }
}
