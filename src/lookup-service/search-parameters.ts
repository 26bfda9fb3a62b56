import { ISO_ALPHA2_CODES } from './jurisdictions.js';
import type { SearchRequest } from './search-index.js';

const MAX_PAGE_SIZE = 50;

type SearchParametersCheck = { ok: true; request: SearchRequest } | { ok: false; message: string };

const DIGITS = /^[0-9]+$/;
const TWO_LETTERS = /^[A-Za-z]{2}$/;

/** Validates the query parameters; the first problem found is reported, naming its parameter. */
export function parseSearchParameters(params: URLSearchParams): SearchParametersCheck {
  const q = params.get('q');
  if (q === null) return { ok: false, message: 'q is required' };
  if (q.trim() === '') return { ok: false, message: 'q must not be empty' };

  const rawJurisdiction = params.get('jurisdiction');
  if (rawJurisdiction === null) return { ok: false, message: 'jurisdiction is required' };
  if (!TWO_LETTERS.test(rawJurisdiction)) return { ok: false, message: 'jurisdiction must be a two-letter ISO 3166-1 alpha-2 code' };
  const jurisdiction = rawJurisdiction.toUpperCase();
  if (!ISO_ALPHA2_CODES.has(jurisdiction)) return { ok: false, message: `Unknown jurisdiction: ${jurisdiction}` };

  const rawPageSize = params.get('pageSize');
  if (rawPageSize === null) return { ok: false, message: 'pageSize is required' };
  const pageSize = DIGITS.test(rawPageSize) ? Number(rawPageSize) : Number.NaN;
  if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE))
    return { ok: false, message: `pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}` };

  const rawPage = params.get('page');
  // A page number too large for a safe integer is still a page past the end, hence Infinity rather than an error.
  const page = rawPage === null ? 1 : DIGITS.test(rawPage) ? Number(rawPage) : Number.NaN;
  if (!(page >= 1)) return { ok: false, message: 'page must be a positive integer' };

  return { ok: true, request: { q, jurisdiction, page, pageSize } };
}
