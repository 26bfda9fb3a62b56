/**
 * The fields of one object that the upstream sent malformed, each read as null
 * or, for a list, without its unreadable entries: field name → the path in
 * the upstream result, e.g. `latitude` → `addressStructured.latitude`.
 */
export type InvalidFields = Readonly<Record<string, string>>;

/**
 * A company as the gateway holds it after reading the upstream's payload: every
 * field the upstream may leave out or send malformed is nullable on its own.
 */
export interface Company {
  name: string;
  companyNumber: string;
  jurisdiction: string;
  /** The status as received, e.g. `ACTIVELY_TRADING`. */
  status: string | null;
  address: Address | null;
  incorporatedDate: Date | null;
  isPlatformMember: boolean | null;
  previousNames: PreviousName[];
  avatar: Avatar | null;
  invalid?: InvalidFields;
}

export interface Address {
  /** The one-line address. */
  formatted: string | null;
  streetLine1: string | null;
  streetLine2: string | null;
  city: string | null;
  region: string | null;
  postcode: string | null;
  /** As received: usually an ISO 3166-1 alpha-2 code, sometimes a country name. */
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  invalid?: InvalidFields;
}

export interface PreviousName {
  name: string;
  /** YYYY-MM-DD */
  startDate: string | null;
  /** YYYY-MM-DD */
  endDate: string | null;
  invalid?: InvalidFields;
}

export interface Avatar {
  image: string | null;
  initials: string | null;
  invalid?: InvalidFields;
}
