import type { Fleet, FleetRedis } from '../../support/fleet.js';

const SEARCH_WORDS = ['Holdings', 'Trading', 'Services', 'Group', 'Consulting', 'Partners', 'Limited', 'Systems', 'Capital', 'Energy'];

/** Distinct searches: a word and a number, each a search no cache holds; `run` keeps the runs of one bench apart. */
export function searchAt(i: number, run: string): { q: string; jurisdiction: string } {
  return { q: `${SEARCH_WORDS[i % SEARCH_WORDS.length]} ${run}${i}`, jurisdiction: 'GB' };
}

export function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export function describeMs(samples: number[]): string {
  return [0.5, 0.9, 0.99].map((q) => `p${q * 100} ${quantile(samples, q).toFixed(3)} ms`).join(', ');
}

/** One search asked of instance `index`, which must be answered whole; how long it took. */
export async function timed(
  fleet: Fleet<FleetRedis>,
  index: number,
  search: { q: string; jurisdiction: string },
  pageSize: number,
): Promise<number> {
  const answer = await fleet.search(index, search, pageSize);
  if (answer.status !== 200 || answer.body.errors !== undefined) throw new Error(`search failed: ${JSON.stringify(answer.body)}`);
  return answer.ms;
}

/** The outages the instances logged: each made them go on alone for a while. */
export function outages(fleet: Fleet<FleetRedis>): number {
  return fleet.logs.flat().filter((line) => line.includes('Redis unavailable')).length;
}
