import type { AVATAR, COMPANY, PREVIOUS_NAME, Written } from '../upstream/company.js';

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

/*
 * The fields a company has are the ones the gateway's reader declares
 * (upstream/company.ts), as the upstream writes them: a field declared there
 * is one the type checker makes this service write. What follows narrows
 * them to what this service promises on top.
 */

export type PreviousName = Written<typeof PREVIOUS_NAME> & {
  /** YYYY-MM-DD */
  startDate: string;
  /** YYYY-MM-DD, never before startDate */
  endDate: string;
};

export type Avatar = Written<typeof AVATAR> & {
  /** One upper-case letter: the first letter of the name. */
  initials: string;
};

/** One company exactly as the search endpoint serialises it; the field order is the wire order. */
export type CompanyResult = Written<typeof COMPANY> & {
  /** Opaque; unique only together with jurisdiction. */
  companyNumber: string;
  status: CompanyStatus;
  /** ISO 8601 date-time in UTC at midnight, e.g. "2004-03-17T00:00:00.000Z". */
  incorporatedDate: string;
  isPlatformMember: boolean;
  /** Most recent first. */
  previousNames: PreviousName[];
  avatar: Avatar;
};

/** The address's parts. `country` is usually an ISO 3166-1 alpha-2 code; on a share of records a country name such as "United Kingdom". */
export type StructuredAddress = NonNullable<CompanyResult['addressStructured']>;
