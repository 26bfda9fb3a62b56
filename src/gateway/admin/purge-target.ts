import { PurgeTargetAmbiguousError, PurgeTargetInvalidError, PurgeTargetMissingError } from '../../errors/admin-refusals.js';
import type { Refusal } from '../../errors/refusal.js';
import { countryCodeProblem, isCountryCode } from '../../schema/country-code.js';
import { ALL_TAG, companyKey, companyTag, jurisdictionTag, searchTag, tagMatcher } from '../../upstream/cache-tags.js';
import { COMPANY } from '../../upstream/company.js';
import { normalizeSearchQuery } from '../../upstream/search-query.js';

/** The fields a purge's body may hold. */
const FIELDS = ['all', 'jurisdiction', 'q', 'companyNumber', 'tag'] as const;

/** Far above any search a client may make (SEARCH_MAX_QUERY_LENGTH's largest) and any tag the gateway writes. */
const MAX_TEXT_LENGTH = 10_000;

/**
 * The one tag (upstream/cache-tags.ts) a purge's JSON body names, or the
 * refusal saying what is wrong with it:
 *
 * - `{"all": true}`: everything;
 * - `{"jurisdiction": "GB"}`: a jurisdiction's searches;
 * - `{"jurisdiction": "GB", "q": "holdings"}`: one search, its terms normalized as searches are;
 * - `{"jurisdiction": "GB", "companyNumber": "01234567"}`: every search holding the company, and its lookups;
 * - `{"tag": "csg:c:GB:01234567"}`: a tag as GET answers carry it for CDNs.
 */
export function purgeTagOf(body: Buffer): string | Refusal {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return new PurgeTargetInvalidError('it is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return new PurgeTargetInvalidError('it is not a JSON object');
  const target = parsed as Record<string, unknown>;
  const unknown = Object.keys(target).find((field) => !(FIELDS as readonly string[]).includes(field));
  if (unknown !== undefined) {
    return new PurgeTargetInvalidError(`${JSON.stringify(unknown.slice(0, 100))} is not a field of a purge (${FIELDS.join(', ')})`);
  }
  for (const field of FIELDS.filter((name) => name !== 'all')) {
    const value = target[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') return new PurgeTargetInvalidError(`${field} must be a string`);
    if (value.trim() === '') return new PurgeTargetInvalidError(`${field} must not be empty`);
    if (value.length > MAX_TEXT_LENGTH) return new PurgeTargetInvalidError(`${field} is longer than ${MAX_TEXT_LENGTH} characters`);
  }
  if (target.all !== undefined && target.all !== true) return new PurgeTargetInvalidError('all must be true, or left out');
  const named = FIELDS.filter((field) => target[field] !== undefined);
  const alone = named.find((field) => field === 'all' || field === 'tag');
  if (alone !== undefined && named.length > 1) return new PurgeTargetAmbiguousError(named);
  if (target.all === true) return ALL_TAG;
  if (typeof target.tag === 'string') {
    return tagMatcher(target.tag) === undefined
      ? new PurgeTargetInvalidError(`tag ${JSON.stringify(target.tag.slice(0, 100))} is not one the gateway's answers carry`)
      : target.tag;
  }
  const { jurisdiction, q, companyNumber } = target as Record<string, string | undefined>;
  if (q !== undefined && companyNumber !== undefined) return new PurgeTargetAmbiguousError(['q', 'companyNumber']);
  if (jurisdiction === undefined) {
    return new PurgeTargetMissingError(named.length === 0 ? 'names nothing' : `names ${named[0]} without the jurisdiction it belongs to`);
  }
  const code = jurisdiction.trim().toUpperCase();
  if (!isCountryCode(code)) return new PurgeTargetInvalidError(`jurisdiction ${countryCodeProblem(jurisdiction)}`);
  if (q !== undefined) return searchTag(normalizeSearchQuery(q, code));
  if (companyNumber === undefined) return jurisdictionTag(code);
  if (companyKey(companyNumber).length > COMPANY.companyNumber.maxLength) {
    return new PurgeTargetInvalidError(`companyNumber is longer than a company number (${COMPANY.companyNumber.maxLength} characters)`);
  }
  return companyTag(code, companyNumber);
}
