import { type Fleet, type FleetRedis, SEARCH_DOCUMENT, type SearchAnswer } from './fleet.js';

/** Searches asked again and again, on every instance: once each instance holds them, they cost no upstream call. */
const POPULAR = ['Holdings', 'Trading', 'Services', 'Group', 'Consulting', 'Partners'];

/** The client that asks more than its rate limit allows, from one address. */
const GREEDY_ADDRESS = '10.255.255.255';

/**
 * Traffic on a fleet whose instances trust one proxy hop (TRUSTED_PROXY_COUNT=1), until stopped: one client loop per
 * instance, each asking its next search as soon as the last is answered, from an address of its own each time (so no
 * search is rate limited): mostly the popular searches, and every fourth a search never asked before. Beside them, a
 * greedy client at one address asks once for each answer the searching clients get, round the instances, far past its
 * rate limit.
 */
export interface FleetTraffic {
  /** Every answer to the searching clients, in the order they came. */
  readonly answers: SearchAnswer[];
  /** Every search the searching clients asked (q), once each. */
  readonly distinct: Set<string>;
  /** The greedy client's requests so far, and how many were let through (200) rather than refused (429). */
  readonly greedy: { sent: number; allowed: number; other: number };
  /** Resolves once `more` answers to the searching clients have come since the call. */
  more(more: number): Promise<void>;
  /** Resolves once the greedy client has sent `count` requests in all. */
  greedySent(count: number): Promise<void>;
  stop(): Promise<void>;
}

export function fleetTraffic(fleet: Fleet<FleetRedis>): FleetTraffic {
  const answers: SearchAnswer[] = [];
  const distinct = new Set<string>();
  const greedy = { sent: 0, allowed: 0, other: 0 };
  const waiters: { done: () => boolean; resolve: () => void }[] = [];
  const settle = () => {
    for (const waiter of waiters.filter((w) => w.done())) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const waitUntil = (done: () => boolean) => new Promise<void>((resolve) => (done() ? resolve() : waiters.push({ done, resolve })));
  let running = true;
  let asked = 0;
  const ask = async (index: number, q: string, address: string) => {
    const answer = await fleet.post(
      index,
      { query: SEARCH_DOCUMENT, variables: { q, jurisdiction: 'GB', pageSize: 5 } },
      { 'x-forwarded-for': address },
    );
    return { status: answer.status, body: JSON.parse(answer.text) as SearchAnswer['body'], ms: 0 };
  };
  const searching = [0, 1, 2].map(async (index) => {
    while (running) {
      asked += 1;
      const n = asked;
      const q = n % 4 === 0 ? `${POPULAR[n % POPULAR.length]} ${n}` : POPULAR[n % POPULAR.length]!;
      distinct.add(q);
      answers.push(await ask(index, q, `10.${index}.${(n >> 8) & 255}.${n & 255}`));
      settle();
    }
  });
  let paced = 0;
  const greedyLoop = (async () => {
    for (let i = 0; running; i++) {
      const { status } = await ask(i % 3, POPULAR[0]!, GREEDY_ADDRESS);
      greedy.sent += 1;
      if (status === 200) greedy.allowed += 1;
      else if (status !== 429) greedy.other += 1;
      settle();
      // Greedy, not a flood: paced by the searching clients' answers, so that they still get their turn on a busy host.
      await waitUntil(() => answers.length > paced || !running);
      paced = answers.length;
    }
  })();
  return {
    answers,
    distinct,
    greedy,
    more(more) {
      const count = answers.length + more;
      return waitUntil(() => answers.length >= count);
    },
    greedySent: (count) => waitUntil(() => greedy.sent >= count),
    async stop() {
      running = false;
      settle();
      await Promise.all([...searching, greedyLoop]);
    },
  };
}
