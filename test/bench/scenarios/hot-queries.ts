import { DASHBOARD_SEARCH, SEARCH_COMPANIES } from '../operations.js';
import type { HotSpec } from './hot.js';

/** "holdings" in GB: 1,228 matches, so a full page of 50. */
const q = 'holdings';
const jurisdiction = 'GB';

export const HOT_FULL_SEARCH: HotSpec = {
  id: 'hot-full',
  title: 'hot: full search, 50 results',
  operation: SEARCH_COMPANIES,
  variables: { q, jurisdiction, pageSize: 50 },
  sameData: [
    { label: 'first: 50 in place of pageSize: 50', variables: { q, jurisdiction, first: 50 } },
    { label: 'jurisdiction "gb"', variables: { q, jurisdiction: 'gb', pageSize: 50 } },
    { label: 'q padded with spaces', variables: { q: `  ${q} `, jurisdiction, pageSize: 50 } },
  ],
};

export const HOT_DASHBOARD: HotSpec = {
  id: 'hot-dashboard',
  title: 'hot: dashboard selection, 50 names',
  operation: DASHBOARD_SEARCH,
  variables: { q, jurisdiction },
  sameData: [
    { label: 'jurisdiction "gb"', variables: { q, jurisdiction: 'gb' } },
    { label: 'q padded with spaces', variables: { q: `  ${q} `, jurisdiction } },
  ],
};
