import { boundedMemo } from './bounded-memo.js';
import { builder } from './builder.js';

const KNOWN_STATUSES = {
  ACTIVELY_TRADING: 'Registered and trading.',
  INACTIVE: 'Registered but not trading.',
  STRIKE_OFF_INITIATED: 'Being struck off the register.',
  IN_ADMINISTRATION: 'Run by an administrator.',
  IN_LIQUIDATION: 'Being wound up.',
  OVERSEAS_ENTITY: 'A company registered abroad with a presence here.',
  DISSOLVED: 'Dissolved and no longer exists.',
  CONVERTED_CLOSED: 'Converted to another kind of entity, or closed.',
  REMOVED: 'Removed from the register.',
  CLOSED_OVERSEAS_ENTITY: 'An overseas entity that has closed its presence here.',
} as const;

export type CompanyStatus = keyof typeof KNOWN_STATUSES | 'UNKNOWN';

export const CompanyStatusRef = builder.enumType('CompanyStatus', {
  description:
    'Status of a company on its register. New values may appear upstream at any time; they arrive as `UNKNOWN`, with the value itself in `statusText`.',
  values: {
    ...Object.fromEntries(Object.entries(KNOWN_STATUSES).map(([name, description]) => [name, { description }])),
    UNKNOWN: { description: 'A status this gateway does not know yet; see `statusText`.' },
  } as Record<CompanyStatus, { description: string }>,
});

/** Distinct status texts remembered: registers use a handful, each written a few ways. */
const REMEMBERED_STATUS_TEXTS = 256;

/** Matches a status as received, ignoring case and separators ("Actively trading" is ACTIVELY_TRADING). */
export const toCompanyStatus = boundedMemo((statusText: string): CompanyStatus => {
  const normalized = statusText
    .trim()
    .toUpperCase()
    .replace(/[\s\-_]+/g, '_');
  return normalized in KNOWN_STATUSES ? (normalized as CompanyStatus) : 'UNKNOWN';
}, REMEMBERED_STATUS_TEXTS);
