import type { InvalidFields } from './company.js';

/** An object of the upstream's JSON. */
export type Json = Record<string, unknown>;

/**
 * A place in the payload, e.g. `results[3].avatar`. Its paths are only built
 * when an invalid field there needs them: nearly every place is read clean,
 * and a search reads hundreds of them.
 */
class Place {
  #path: string | undefined;
  #within: string | undefined;

  constructor(
    private readonly parent: Place | undefined,
    /** The step from the parent; for a result, its index in `results`. */
    private readonly key: string | number,
  ) {}

  /** Path from the top of the body, e.g. `results[3].avatar`. */
  get path(): string {
    this.#path ??= this.parent === undefined ? `results[${this.key}]` : stepped(this.parent.path, this.key);
    return this.#path;
  }

  /** Path within the result, e.g. `avatar`. */
  get within(): string {
    this.#within ??= this.parent === undefined ? '' : this.parent.inside(this.key);
    return this.#within;
  }

  /** The path within the result of `key` below this place. */
  inside(key: string | number): string {
    return typeof key === 'number' ? `${this.within}[${key}]` : this.within === '' ? key : `${this.within}.${key}`;
  }
}

function stepped(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`;
}

/**
 * Collects the invalid fields found while reading one place of the payload:
 * their paths for the log, and, for the object being built, which of its
 * fields they fed, so the schema can report each one where a client selected it.
 */
export class FieldReport {
  constructor(
    private readonly place: Place,
    private readonly sink: string[],
    private readonly target: Record<string, string> = {},
  ) {}

  /** The report for result `index` of the payload. */
  static forResult(index: number, sink: string[]): FieldReport {
    return new FieldReport(new Place(undefined, index), sink);
  }

  /** The report for a place below this one, feeding the same object. */
  below(key: string | number): FieldReport {
    return new FieldReport(new Place(this.place, key), this.sink, this.target);
  }

  /** The report for a new object read at this place: its invalid fields are its own. */
  forObject(): FieldReport {
    return new FieldReport(this.place, this.sink);
  }

  /** Records the value at this place as invalid, feeding these `fields` of the object. */
  invalid(...fields: string[]): null {
    this.sink.push(this.place.path);
    for (const field of fields) this.target[field] = this.place.within;
    return null;
  }

  /**
   * Records the object at this place as unreadable because of its `key` (a
   * required field): the path of that field goes to the log, and these
   * `fields` of the object above are reported as fed by this place.
   */
  unreadable(key: string, ...fields: string[]): null {
    this.sink.push(stepped(this.place.path, key));
    for (const field of fields) this.target[field] = this.place.within;
    return null;
  }

  /** Records that `field` of the object is null because of an invalid value already reported at `within`. */
  nullBecauseOf(field: string, within: string): void {
    this.target[field] = within;
  }

  /**
   * Reads `key` of `source`: absent or null is simply null; any other value
   * `accept` refuses is reported as feeding `field` (by default `key`; null:
   * the caller substitutes a value of its own and no client needs telling).
   */
  read<T>(source: Json, key: string, accept: (value: unknown) => T | null, field: string | null = key): T | null {
    const value = source[key];
    if (value === undefined || value === null) return null;
    const accepted = accept(value);
    if (accepted !== null) return accepted;
    this.sink.push(stepped(this.place.path, key));
    if (field !== null) this.target[field] = this.place.inside(key);
    return null;
  }

  /** `{ invalid }` to spread into the object read, or nothing when all its fields were readable. */
  fields(): { invalid?: InvalidFields } {
    return Object.keys(this.target).length === 0 ? {} : { invalid: this.target };
  }

  /** Adds `invalid` to the object read, where any of its fields was not readable. */
  noteInvalid(read: { invalid?: InvalidFields }): void {
    if (hasKeys(this.target)) read.invalid = this.target;
  }
}

/** Whether `object` has any own key, without listing them: nearly every object read has none invalid. */
function hasKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}
