import { expect } from 'vitest';
import type { Stack } from './stack.js';

/** Fails the test if the lookup service got a search or token request since its counters were last reset. */
export function expectNoUpstreamCall(stack: Stack): void {
  const { searchRequests, tokenRequests } = stack.lookup.counters;
  expect({ searchRequests, tokenRequests }).toEqual({ searchRequests: 0, tokenRequests: 0 });
}

/**
 * The (jurisdiction, q) of every search the lookup service received since its
 * counters were last reset: in arrival order, or sorted where searches run at
 * once and arrive in any order.
 */
export function upstreamSearches(stack: Stack, order: 'arrival' | 'sorted' = 'arrival'): [string | null, string | null][] {
  const searches = stack.lookup.counters.searchQueries.map((raw): [string | null, string | null] => {
    const params = new URLSearchParams(raw);
    return [params.get('jurisdiction'), params.get('q')];
  });
  return order === 'sorted' ? searches.sort((a, b) => a.join(' ').localeCompare(b.join(' '))) : searches;
}
