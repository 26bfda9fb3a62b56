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

/** Search terms trimmed, inner whitespace collapsed to one space. */
export function normalizeSearchText(q: string): string {
  return q.trim().replace(/\s+/g, ' ');
}

/** A key that identifies a normalized query, for caches and cursors. */
export function searchQueryKey(query: SearchQuery): string {
  return `${query.jurisdiction}\u0000${query.q}`;
}
