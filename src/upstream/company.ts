/**
 * A company as the upstream sends it, declared once: each field's kind, the
 * longest string it may hold, and where in the search body it is read from.
 * The types below, the reader of search bodies (search-response.ts), the
 * codec of windows shared through Redis (window-codec.ts) and the schema's
 * fields and descriptions (schema/upstream-field.ts) all follow from this
 * declaration, so a field cannot be read and then lost on its way through
 * Redis, and its cap is written in one place. The embedded lookup service
 * writes companies of this shape (Written), and the schema serves every
 * field declared here under its own name: test/lookup-service/wire-shape.test.ts
 * and test/schema/declared-fields.test.ts hold both.
 *
 * Caps: a string longer than its field's cap (in UTF-16 code units, as
 * `String.length` counts them) is unreadable, like any malformed value: the
 * field reads as null with an UPSTREAM_INVALID_FIELD error naming the upstream
 * field, a previous name or a result whose required `name` or `companyNumber`
 * is too long is left out with that error, and the window's log line warns
 * with the field's path. Caps stand far above what registers hold (the UK and
 * Irish registers allow names of 160 characters), so that they only ever stop
 * a broken or hostile upstream from making answers many times their size.
 */

/** A string, non-empty once trimmed, of at most `maxLength` UTF-16 code units. */
export interface TextField<Required extends boolean = boolean> {
  readonly kind: 'text';
  readonly maxLength: number;
  /** A result (or list entry) without a readable one is left out. */
  readonly required: Required;
}

/** An absolute http: or https: URL of at most `maxLength` characters. */
export interface UrlField {
  readonly kind: 'url';
  readonly maxLength: number;
}

/** Any date and time `Date` reads, as a string of at most `maxLength` characters. */
export interface DateTimeField {
  readonly kind: 'dateTime';
  readonly maxLength: number;
}

/** A calendar date, `YYYY-MM-DD`. */
export interface DateField {
  readonly kind: 'date';
  readonly maxLength: 10;
}

/** A finite number from `min` to `max`. */
export interface NumberField {
  readonly kind: 'number';
  readonly min: number;
  readonly max: number;
}

export interface BooleanField {
  readonly kind: 'boolean';
}

/** Two letters, read upper-cased; the jurisdiction searched stands in for an unreadable one. */
export interface JurisdictionField {
  readonly kind: 'jurisdiction';
  readonly maxLength: 2;
}

/** An object of its own `shape`, or null. */
export interface ObjectField<S extends Shape = Shape> {
  readonly kind: 'object';
  readonly shape: S;
}

/** A list of objects of one `shape`; entries past `maxItems` are left out unread. */
export interface ListField<S extends Shape = Shape> {
  readonly kind: 'list';
  readonly shape: S;
  readonly maxItems: number;
}

/**
 * The registered address, from two fields of the upstream's result: its
 * `formatted` field from the one-line `address`, every other field from the
 * object `addressStructured`.
 */
export interface AddressField<S extends Shape = Shape> {
  readonly kind: 'address';
  readonly shape: S;
}

export type Field =
  | TextField
  | UrlField
  | DateTimeField
  | DateField
  | NumberField
  | BooleanField
  | JurisdictionField
  | ObjectField
  | ListField
  | AddressField;

/** Fields by name: the name is the upstream's and the gateway's alike (`address` aside, see AddressField). */
export type Shape = { readonly [name: string]: Field };

/** A field whose value is a string the upstream wrote, with its cap. */
export type CappedField = TextField | UrlField | DateTimeField | DateField | JurisdictionField;

/**
 * The fields of one object that the upstream sent malformed, each read as null
 * or, for a list, without its unreadable entries: field name → the path in
 * the upstream result, e.g. `latitude` → `addressStructured.latitude`.
 */
export type InvalidFields = Readonly<Record<string, string>>;

/** What the gateway holds for a field once read: every field the upstream may leave out or send malformed is nullable on its own. */
export type ValueOf<F extends Field> =
  F extends TextField<true>
    ? string
    : F extends TextField | UrlField | DateField
      ? string | null
      : F extends DateTimeField
        ? Date | null
        : F extends NumberField
          ? number | null
          : F extends BooleanField
            ? boolean | null
            : F extends JurisdictionField
              ? string
              : F extends ObjectField<infer S>
                ? Read<S> | null
                : F extends ListField<infer S>
                  ? Read<S>[]
                  : F extends AddressField<infer S>
                    ? Read<S> | null
                    : never;

/** An object of `shape` as the gateway holds it after reading the upstream's payload, with the fields it found malformed. */
export type Read<S extends Shape> = { -readonly [K in keyof S]: ValueOf<S[K]> } & { invalid?: InvalidFields };

/** What the upstream writes for a field the reader reads whole: dates are strings, and anything optional may be null. */
type WrittenValueOf<F extends Field> = F extends TextField<true> | JurisdictionField
  ? string
  : F extends TextField | UrlField | DateTimeField | DateField
    ? string | null
    : F extends NumberField
      ? number | null
      : F extends BooleanField
        ? boolean | null
        : F extends ObjectField<infer S>
          ? Written<S> | null
          : F extends ListField<infer S>
            ? Written<S>[]
            : never;

/** The address a shape declares, if any. */
type AddressShapeOf<S extends Shape> = { [K in keyof S]: S[K] extends AddressField<infer A> ? A : never }[keyof S];

/** An address as the upstream writes it, in two fields of the result (see AddressField). */
interface WrittenAddress<A extends Shape> {
  address: string | null;
  addressStructured: Written<{ [K in keyof A as K extends 'formatted' ? never : K]: A[K] }> | null;
}

/**
 * An object of `shape` as the upstream writes it in a search body, which the
 * reader takes. The embedded lookup service types the companies it serves
 * with it, so a field declared here is one the type checker makes it write.
 */
export type Written<S extends Shape> = {
  -readonly [K in keyof S as S[K] extends AddressField ? never : K]: WrittenValueOf<S[K]>;
} & ([AddressShapeOf<S>] extends [never] ? unknown : WrittenAddress<AddressShapeOf<S>>);

const text = (maxLength: number): TextField<false> => ({ kind: 'text', maxLength, required: false });
const requiredText = (maxLength: number): TextField<true> => ({ kind: 'text', maxLength, required: true });

const url = (maxLength: number): UrlField => ({ kind: 'url', maxLength });
const dateTime: DateTimeField = { kind: 'dateTime', maxLength: 64 };
const date: DateField = { kind: 'date', maxLength: 10 };
const number = (min: number, max: number): NumberField => ({ kind: 'number', min, max });
const boolean: BooleanField = { kind: 'boolean' };

/**
 * Most previous names read per company; any past them are left out unread.
 * Answers are sized before they are built (MAX_RESULT_FIELDS) with this as
 * the length of every company's list, so it must hold. Registers list a
 * handful (the data set at most 3).
 */
export const MAX_PREVIOUS_NAMES = 20;

/** A company name, current or previous: registers allow 160 characters. */
const NAME = 500;
/** One line of an address, a city or a region. */
const ADDRESS_LINE = 200;

export const PREVIOUS_NAME = {
  name: requiredText(NAME),
  startDate: date,
  endDate: date,
} as const satisfies Shape;

export const ADDRESS = {
  /** The whole address on one line, from the result's `address`. */
  formatted: text(1_000),
  streetLine1: text(ADDRESS_LINE),
  streetLine2: text(ADDRESS_LINE),
  city: text(ADDRESS_LINE),
  region: text(ADDRESS_LINE),
  postcode: text(40),
  /** As received: usually an ISO 3166-1 alpha-2 code, sometimes a country name. */
  country: text(100),
  latitude: number(-90, 90),
  longitude: number(-180, 180),
} as const satisfies Shape;

export const AVATAR = {
  image: url(2_048),
  initials: text(10),
} as const satisfies Shape;

export const COMPANY = {
  name: requiredText(NAME),
  /** Opaque: registers' numbers have 5 to 8 characters. */
  companyNumber: requiredText(50),
  jurisdiction: { kind: 'jurisdiction', maxLength: 2 },
  /** As received, e.g. `ACTIVELY_TRADING`. */
  status: text(100),
  address: { kind: 'address', shape: ADDRESS },
  incorporatedDate: dateTime,
  isPlatformMember: boolean,
  previousNames: { kind: 'list', shape: PREVIOUS_NAME, maxItems: MAX_PREVIOUS_NAMES },
  avatar: { kind: 'object', shape: AVATAR },
} as const satisfies Shape;

export type Company = Read<typeof COMPANY>;
export type Address = Read<typeof ADDRESS>;
export type PreviousName = Read<typeof PREVIOUS_NAME>;
export type Avatar = Read<typeof AVATAR>;

/** The names of a shape's fields, in the order declared (the order of the objects read). */
export function fieldNames<S extends Shape>(shape: S): (keyof S & string)[] {
  return Object.keys(shape);
}
