/** A search as the upstream sees it: the same normalized query always gets the same answer. */
export interface SearchQuery {
  q: string;
  jurisdiction: string;
}

/**
 * Trims `q` and collapses its inner whitespace, upper-cases the jurisdiction,
 * and changes nothing else: case, punctuation and leading zeros may matter to
 * the upstream.
 */
export function normalizeSearchQuery(q: string, jurisdiction: string): SearchQuery {
  return { q: normalizeSearchText(q), jurisdiction: jurisdiction.trim().toUpperCase() };
}

/** With the `u` flag, a surrogate pair is one code point: only an unpaired half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;

/**
 * Search terms trimmed, inner whitespace collapsed to one space, and each
 * lone surrogate (JSON can carry one, UTF-8 cannot) made U+FFFD, as UTF-8
 * writes it: the upstream receives the same search either way, and every
 * key made of the terms (the caches' digests, Redis, tags) reads back as written.
 */
export function normalizeSearchText(q: string): string {
  return q.trim().replace(/\s+/g, ' ').replace(LONE_SURROGATE, '\uFFFD');
}

/** A key that identifies a normalized query, for caches and cursors. */
export function searchQueryKey(query: SearchQuery): string {
  return `${query.jurisdiction}\u0000${query.q}`;
}
