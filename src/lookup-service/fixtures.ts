import { companyInitials, formatAddress, logoUrl } from './address-format.js';
import type { CompanyResult, CompanyStatus, PreviousName, StructuredAddress } from './company.js';
import { deepFreeze } from './deep-freeze.js';

interface FixtureSpec {
  name: string;
  companyNumber: string;
  jurisdiction?: 'GB' | 'IE';
  status?: CompanyStatus;
  /** YYYY-MM-DD */
  incorporated: string;
  isPlatformMember?: boolean;
  previousNames?: PreviousName[];
  addressStructured?: StructuredAddress | null;
  hasLogo?: boolean;
}

const LONDON_OFFICE: StructuredAddress = {
  streetLine1: '20 Victoria Street',
  streetLine2: 'Floor 3',
  city: 'London',
  region: 'Greater London',
  postcode: 'SW1H 0NB',
  country: 'GB',
  latitude: 51.498,
  longitude: -0.1337,
};

const DUBLIN_OFFICE: StructuredAddress = {
  streetLine1: '1 Grand Canal Square',
  streetLine2: null,
  city: 'Dublin',
  region: 'County Dublin',
  postcode: 'D02 P820',
  country: 'IE',
  latitude: 53.3393,
  longitude: -6.2366,
};

function fixture(spec: FixtureSpec): CompanyResult {
  const jurisdiction = spec.jurisdiction ?? 'GB';
  const addressStructured =
    spec.addressStructured === undefined ? (jurisdiction === 'GB' ? LONDON_OFFICE : DUBLIN_OFFICE) : spec.addressStructured;
  return deepFreeze({
    name: spec.name,
    companyNumber: spec.companyNumber,
    jurisdiction,
    status: spec.status ?? 'ACTIVELY_TRADING',
    address: addressStructured === null ? null : formatAddress(addressStructured),
    addressStructured: addressStructured === null ? null : { ...addressStructured },
    incorporatedDate: `${spec.incorporated}T00:00:00.000Z`,
    isPlatformMember: spec.isPlatformMember ?? false,
    previousNames: spec.previousNames ?? [],
    avatar: {
      image: spec.hasLogo === false ? null : logoUrl(jurisdiction, spec.companyNumber),
      initials: companyInitials(spec.name),
    },
  });
}

/** Well-known companies with fixed names and numbers, always part of the default data set. */
export const fixtureCompanies = deepFreeze({
  /** The only company whose name contains "Zebra" or "Quantum". */
  uniqueName: fixture({
    name: 'Zebra Quantum Fisheries Ltd',
    companyNumber: '09876543',
    incorporated: '2016-04-12',
    isPlatformMember: true,
    addressStructured: {
      streetLine1: '14 Fish Dock Road',
      streetLine2: 'Unit 3',
      city: 'Grimsby',
      region: 'Lincolnshire',
      postcode: 'DN31 3NW',
      country: 'GB',
      latitude: 53.5763,
      longitude: -0.0712,
    },
  }),
  /**
   * Found by either previous name too; the only company that ever had these names. Every field the gateway declares
   * holds a value here, at every depth: the wire-shape tests read it, and ask the schema for it, whole.
   */
  withPreviousNames: fixture({
    name: 'Marlowe Kestrel Analytics Ltd',
    companyNumber: '07654321',
    incorporated: '2009-03-02',
    isPlatformMember: true,
    previousNames: [
      { name: 'Kestrel Print Works Limited', startDate: '2015-06-01', endDate: '2019-02-14' },
      { name: 'Marlowe & Finch Printers Ltd', startDate: '2009-03-02', endDate: '2015-06-01' },
    ],
  }),
  nullAddress: fixture({
    name: 'Driftwood Nomad Trading Ltd',
    companyNumber: '11223344',
    incorporated: '2021-11-30',
    addressStructured: null,
    hasLogo: false,
  }),
  partialAddress: fixture({
    name: 'Cobblestone Yard Crafts Ltd',
    companyNumber: '05566778',
    incorporated: '2005-08-19',
    addressStructured: {
      streetLine1: null,
      streetLine2: null,
      city: 'Leeds',
      region: null,
      postcode: 'LS1 4AB',
      country: 'England',
      latitude: null,
      longitude: null,
    },
    hasLogo: false,
  }),
  scottish: fixture({
    name: 'Thistle Glen Whisky Ltd',
    companyNumber: 'SC123456',
    incorporated: '1998-01-15',
    addressStructured: {
      streetLine1: '3 Distillery Lane',
      streetLine2: null,
      city: 'Perth',
      region: 'Perth and Kinross',
      postcode: 'PH1 5QT',
      country: 'Scotland',
      latitude: 56.3969,
      longitude: -3.4374,
    },
  }),
  northernIrish: fixture({ name: 'Lagan Linen Mills Ltd', companyNumber: 'NI654321', incorporated: '1987-05-05' }),
  limitedLiabilityPartnership: fixture({ name: 'Harcourt Vane Advisory LLP', companyNumber: 'OC312345', incorporated: '2006-02-01' }),
  /** Same name as `limited` apart from the suffix: both are exact matches for either spelling. */
  ltd: fixture({ name: 'Northgate Lumber Ltd', companyNumber: '04433221', incorporated: '2002-07-07' }),
  limited: fixture({ name: 'Northgate Lumber Limited', companyNumber: '08899001', incorporated: '2013-10-10', status: 'DISSOLVED' }),
  /** Same name as `sameNameIe`, in the other jurisdiction. */
  sameNameGb: fixture({ name: 'Atlantic Bridge Consulting Limited', companyNumber: '06543210', incorporated: '2008-09-09' }),
  sameNameIe: fixture({
    name: 'Atlantic Bridge Consulting Limited',
    companyNumber: '512345',
    jurisdiction: 'IE',
    incorporated: '2012-12-12',
  }),
  irishPlc: fixture({
    name: "O'Reilly Holdings Public Limited Company",
    companyNumber: '123456',
    jurisdiction: 'IE',
    incorporated: '1994-06-20',
    isPlatformMember: true,
  }),
  /** Five-digit Irish number, name with accents. */
  irishLanguage: fixture({ name: 'Bláth na Mara Teoranta', companyNumber: '98765', jurisdiction: 'IE', incorporated: '1979-03-21' }),
  designatedActivity: fixture({ name: 'Liffey Quay Leasing DAC', companyNumber: '654987', jurisdiction: 'IE', incorporated: '2019-05-31' }),
} as const satisfies Record<string, CompanyResult>);

/** One GB company per status, all named "Ferncastle …" so a search for "ferncastle" returns exactly these. */
export const fixtureCompaniesByStatus: Readonly<Record<CompanyStatus, CompanyResult>> = deepFreeze({
  ACTIVELY_TRADING: fixture({ name: 'Ferncastle Actively Trading Ltd', companyNumber: '03000001', incorporated: '2011-01-01' }),
  INACTIVE: fixture({ name: 'Ferncastle Dormant Ltd', companyNumber: '03000002', incorporated: '2011-01-02', status: 'INACTIVE' }),
  STRIKE_OFF_INITIATED: fixture({
    name: 'Ferncastle Strike Off Ltd',
    companyNumber: '03000003',
    incorporated: '2011-01-03',
    status: 'STRIKE_OFF_INITIATED',
  }),
  IN_ADMINISTRATION: fixture({
    name: 'Ferncastle Administration Ltd',
    companyNumber: '03000004',
    incorporated: '2011-01-04',
    status: 'IN_ADMINISTRATION',
  }),
  IN_LIQUIDATION: fixture({
    name: 'Ferncastle Liquidation Ltd',
    companyNumber: '03000005',
    incorporated: '2011-01-05',
    status: 'IN_LIQUIDATION',
  }),
  OVERSEAS_ENTITY: fixture({
    name: 'Ferncastle Overseas GmbH',
    companyNumber: 'FC012345',
    incorporated: '2011-01-06',
    status: 'OVERSEAS_ENTITY',
  }),
  DISSOLVED: fixture({
    name: 'Ferncastle Dissolved Ltd',
    companyNumber: '03000007',
    incorporated: '2011-01-07',
    status: 'DISSOLVED',
    hasLogo: false,
  }),
  CONVERTED_CLOSED: fixture({
    name: 'Ferncastle Converted Ltd',
    companyNumber: '03000008',
    incorporated: '2011-01-08',
    status: 'CONVERTED_CLOSED',
  }),
  REMOVED: fixture({ name: 'Ferncastle Removed Ltd', companyNumber: '03000009', incorporated: '2011-01-09', status: 'REMOVED' }),
  CLOSED_OVERSEAS_ENTITY: fixture({
    name: 'Ferncastle Closed Overseas B.V.',
    companyNumber: 'FC023456',
    incorporated: '2011-01-10',
    status: 'CLOSED_OVERSEAS_ENTITY',
  }),
});

export const allFixtureCompanies: readonly CompanyResult[] = Object.freeze([
  ...Object.values(fixtureCompanies),
  ...Object.values(fixtureCompaniesByStatus),
]);
