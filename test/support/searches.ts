let searchesMade = 0;

/**
 * A search no earlier call has made, so no cache holds it; every one reaches
 * the same companies as `words` alone (the lookup service matches by word).
 */
export function freshSearch(words = 'ferncastle'): { q: string; jurisdiction: string } {
  searchesMade += 1;
  return { q: `${words} ${searchesMade}`, jurisdiction: 'GB' };
}
