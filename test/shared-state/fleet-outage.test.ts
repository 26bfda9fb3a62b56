import { afterEach, describe, expect, it } from 'vitest';
import { startFleet, type Fleet, type SearchAnswer } from '../support/fleet.js';
import { SAFETY_MS, within } from '../support/within.js';

const OUTAGE = 'Redis unavailable';
const BACK = 'Redis is back';
/** Searches each instance is asked, in turn: some repeated, so caches and shared windows are in play throughout. */
const WORDS = ['Holdings', 'Trading', 'Services', 'Group', 'Consulting', 'Partners'];

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** Three clients, one per instance, each asking its next search as soon as the last is answered, until stopped. */
function traffic(target: Fleet) {
  const answers: SearchAnswer[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let running = true;
  let sent = 0;
  const loops = [0, 1, 2].map(async (index) => {
    while (running) {
      sent += 1;
      const word = WORDS[sent % WORDS.length]!;
      answers.push(await target.search(index, { q: sent % 4 === 0 ? `${word} ${sent}` : word, jurisdiction: 'GB' }));
      for (const waiter of waiters.filter((w) => answers.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  return {
    answers,
    /** Resolves once `more` answers have come since the call. */
    more(more: number): Promise<void> {
      const count = answers.length + more;
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async stop(): Promise<void> {
      running = false;
      await Promise.all(loops);
    },
  };
}

describe('a fleet whose Redis fails', () => {
  it('answers every request while Redis is frozen or killed, logs the outage once, and shares again once Redis is back', async () => {
    fleet = await startFleet({ gateway: { rateLimitPerMinute: 0 } });
    const load = traffic(fleet);
    try {
      await within(load.more(30), SAFETY_MS, 'traffic before the outage');
      const before = load.answers.length;
      fleet.redis.freeze();
      await within(Promise.all([0, 1, 2].map((i) => fleet!.logged(i, OUTAGE))), SAFETY_MS, 'every instance to see Redis frozen');
      await within(load.more(60), SAFETY_MS, 'traffic while Redis is frozen');
      await fleet.redis.kill();
      await within(load.more(60), SAFETY_MS, 'traffic while Redis is killed');
      await fleet.redis.restart();
      await within(Promise.all([0, 1, 2].map((i) => fleet!.logged(i, BACK))), SAFETY_MS, 'every instance to find Redis back');
      await within(load.more(30), SAFETY_MS, 'traffic after the outage');
      const during = load.answers.slice(before);
      expect(during.filter((answer) => answer.status !== 200 || answer.body.errors !== undefined)).toEqual([]);
    } finally {
      await load.stop();
    }
    for (const index of [0, 1, 2]) {
      // One line for the outage and one for its end, never one per request (hundreds met it), and none for a late
      // answer on a busy machine: that is no outage.
      expect(fleet.logs[index]!.filter((line) => line.includes(OUTAGE))).toHaveLength(1);
      expect(fleet.logs[index]!.filter((line) => line.includes(BACK))).toHaveLength(1);
    }
    // Sharing again: a search new to all three is fetched once, whichever instance asks.
    fleet.lookup.counters.reset();
    for (const index of [0, 1, 2]) expect((await fleet.search(index, { q: 'Limited', jurisdiction: 'GB' })).body.errors).toBeUndefined();
    expect(fleet.lookup.counters.searchRequests).toBe(1);
  });
});
