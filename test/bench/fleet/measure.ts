import { type Fleet, type FleetOptions, type FleetRedis, startFleet } from '../../support/fleet.js';
import { send } from '../../support/http.js';
import { until } from '../../support/redis-cli.js';

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

/** Whether every instance says (on /ready) that it shares through Redis. */
export async function everyInstanceShares(fleet: Fleet<FleetRedis>): Promise<boolean> {
  const states = await Promise.all(fleet.gateways.map(async (gateway) => JSON.parse((await send(`${gateway.url}/ready`)).text).redis));
  return states.every((state) => state === 'connected');
}

/**
 * A fleet on the bench's Redis, once every instance shares: what a phase measures is the fleet sharing. The token is
 * asked for by the first searches, not as each instance starts (on a busy host one may start before its Sentinel or
 * cluster client has connected, and fetch a token of its own).
 */
export async function sharingFleet(redis: () => Promise<FleetRedis>, options: Omit<FleetOptions<FleetRedis>, 'redis' | 'tokenAtStart'>) {
  const fleet = await startFleet({ ...options, redis, tokenAtStart: false });
  try {
    await until(() => everyInstanceShares(fleet), 'every instance to share');
  } catch (error) {
    await fleet.close();
    throw error;
  }
  return fleet;
}
