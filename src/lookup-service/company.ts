export const COMPANY_STATUSES = [
  'ACTIVELY_TRADING',
  'INACTIVE',
  'STRIKE_OFF_INITIATED',
  'IN_ADMINISTRATION',
  'IN_LIQUIDATION',
  'OVERSEAS_ENTITY',
  'DISSOLVED',
  'CONVERTED_CLOSED',
  'REMOVED',
  'CLOSED_OVERSEAS_ENTITY',
] as const;

export type CompanyStatus = (typeof COMPANY_STATUSES)[number];

export interface StructuredAddress {
  streetLine1: string | null;
  streetLine2: string | null;
  city: string | null;
  region: string | null;
  postcode: string | null;
  /** Usually an ISO 3166-1 alpha-2 code; on a share of records a country name such as "United Kingdom". */
  country: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface PreviousName {
  name: string;
  /** YYYY-MM-DD */
  startDate: string;
  /** YYYY-MM-DD, never before startDate */
  endDate: string;
}

export interface Avatar {
  image: string | null;
  /** One upper-case letter: the first letter of the name. */
  initials: string;
}

/** One company exactly as the search endpoint serialises it; the field order is the wire order. */
export interface CompanyResult {
  name: string;
  /** Opaque; unique only together with jurisdiction. */
  companyNumber: string;
  jurisdiction: string;
  status: CompanyStatus;
  address: string | null;
  addressStructured: StructuredAddress | null;
  /** ISO 8601 date-time in UTC at midnight, e.g. "2004-03-17T00:00:00.000Z". */
  incorporatedDate: string;
  isPlatformMember: boolean;
  /** Most recent first. */
  previousNames: PreviousName[];
  avatar: Avatar;
}
