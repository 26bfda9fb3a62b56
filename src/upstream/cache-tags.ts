import { hash } from 'node:crypto';
import { COMPANY } from './company.js';
import { normalizeSearchText, type SearchQuery } from './search-query.js';

/**
 * What a piece of cached data is about, as tags: every window and every
 * answer carries `csg:all`, its jurisdiction's tag, its search's tag and the
 * tags of the companies it holds. A purge names one tag and drops whatever
 * carries it: in each instance's memory, on the fleet's Redis (an index per
 * tag) and, through the `Cache-Tag` or `Surrogate-Key` header of GET answers,
 * at a CDN. One spelling for all four, so that a tag a CDN was given purges
 * the gateway too.
 *
 * Tags are printable ASCII without spaces or commas, as the CDNs' tag headers
 * take them: a search by a digest of its normalized terms, a company number
 * upper-cased and percent-encoded.
 */
export const ALL_TAG = 'csg:all';

/** The search digest: 128 bits of SHA-256, base64url. */
const SEARCH_DIGEST_LENGTH = 22;
const TAG = /^csg:(?:(all)|j:([A-Z]{2})|s:([A-Z]{2}):([A-Za-z0-9_-]{22})|c:([A-Z]{2}):([!-~]+))$/;

export function jurisdictionTag(jurisdiction: string): string {
  return `csg:j:${jurisdiction}`;
}

export function searchTag(query: SearchQuery): string {
  return `csg:s:${query.jurisdiction}:${searchDigest(query)}`;
}

export function companyTag(jurisdiction: string, companyNumber: string): string {
  return `csg:c:${jurisdiction}:${encodeURIComponent(companyKey(companyNumber))}`;
}

/** Printable ASCII without a space. */
const PLAIN_NUMBER = /^[!-~]*$/;

/** A company number as lookups compare it: trimmed, inner whitespace collapsed, upper-cased (as `company(...)` finds it). */
export function companyKey(companyNumber: string): string {
  // Printable ASCII without a space, as nearly every number is, has nothing to trim, collapse or replace.
  return (PLAIN_NUMBER.test(companyNumber) ? companyNumber : normalizeSearchText(companyNumber)).toUpperCase();
}

/** Whether search terms could be a company number (no space, within its cap), as `company(...)` searches for one. */
function couldBeCompanyNumber(q: string): boolean {
  return q.length <= COMPANY.companyNumber.maxLength && !q.includes(' ');
}

function searchDigest(query: SearchQuery): string {
  return hash('sha256', `${query.jurisdiction}\u0000${query.q}`, 'base64url').slice(0, SEARCH_DIGEST_LENGTH);
}

/** A company as tags name it: by its jurisdiction and number. */
export interface CompanyIdentity {
  jurisdiction: string;
  companyNumber: string;
}

/**
 * The tags of the data read for `query`: everything's, its jurisdiction's,
 * its own, and those of `companies`. A search for a company number (as
 * `company(...)` and `node(id:)` make; terms without a space, at most as long
 * as a company number) carries that company's tag too, found
 * or not: a company corrected into existence drops the answer that did not
 * find it.
 */
export function dataTags(query: SearchQuery, companies: Iterable<CompanyIdentity | null>, into = new Set<string>()): Set<string> {
  into.add(ALL_TAG).add(jurisdictionTag(query.jurisdiction)).add(searchTag(query));
  if (couldBeCompanyNumber(query.q)) into.add(companyTag(query.jurisdiction, query.q));
  for (const company of companies) if (company) into.add(companyTag(company.jurisdiction, company.companyNumber));
  return into;
}

/** A window as a matcher asks about it: whether it holds a company, its number as companyKey writes it. */
export interface HeldCompanies {
  holdsCompany(jurisdiction: string, companyKey: string): boolean;
}

/** What one tag names, as a test of a window in memory: cheaper than the window's tags, made only to compare. */
export interface TagMatcher {
  readonly tag: string;
  holds(query: SearchQuery, window: HeldCompanies): boolean;
}

/** The matcher of a tag the gateway makes, or undefined for any other string. */
export function tagMatcher(tag: string): TagMatcher | undefined {
  const match = TAG.exec(tag);
  if (match === null) return undefined;
  const [, all, jurisdiction, searchIn, digest, companyIn, encodedNumber] = match;
  if (all !== undefined) return { tag, holds: () => true };
  if (jurisdiction !== undefined) return { tag, holds: (query) => query.jurisdiction === jurisdiction };
  if (searchIn !== undefined) {
    return { tag, holds: (query) => query.jurisdiction === searchIn && searchDigest(query) === digest };
  }
  let number: string;
  try {
    number = decodeURIComponent(encodedNumber!);
  } catch {
    return undefined;
  }
  // Only the spelling companyTag writes: another spelling of the same number would be a second name for one tag.
  if (companyTag(companyIn!, number) !== tag) return undefined;
  return {
    tag,
    holds: (query, window) =>
      (query.jurisdiction === companyIn && couldBeCompanyNumber(query.q) && companyKey(query.q) === number) ||
      window.holdsCompany(companyIn!, number),
  };
}
