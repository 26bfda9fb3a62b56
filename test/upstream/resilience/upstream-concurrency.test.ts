import { afterEach, describe, expect, it } from 'vitest';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { type HoldingUpstream, holdingUpstream } from '../../support/holding-upstream.js';
import { recordedAlarms } from '../../support/recorded-alarms.js';
import { startStack, type Stack, type StackOptions } from '../../support/stack.js';
import { eventually } from '../../support/within.js';

let stack: Stack | undefined;
afterEach(() => stack?.close());

async function start(upstreamMaxInFlight: number, requestDeadlineMs = 10_000, options: StackOptions = {}, upstream?: HoldingUpstream) {
  stack = await startStack({ ...options, gateway: { upstreamMaxInFlight, requestDeadlineMs, upstreamRetries: 0 } });
  upstream?.forwardTo(stack.lookup.url);
  // The token is fetched first, so that only searches wait below.
  await stack.execute(DashboardSearchDocument, { q: 'warm up', jurisdiction: 'GB' });
  stack.lookup.counters.reset();
  return stack;
}

function searches(count: number, prefix: string) {
  return Array.from({ length: count }, (_, index) => ({ q: `${prefix} ${index}`, jurisdiction: 'GB' }));
}

describe('upstream concurrency limit', () => {
  it('keeps at most N calls in flight and queues the rest, answering all of them', async () => {
    // Every search is held at the upstream until the test lets them go: the calls in flight are the ones that arrived.
    const upstream = await holdingUpstream((q) => q.startsWith('ferncastle '));
    const alarms = recordedAlarms();
    try {
      const stack = await start(2, 60_000, { upstreamUrl: upstream.url, deadlineAlarm: alarms.alarm }, upstream);
      alarms.forgetSilenced();
      const answers = Promise.all(searches(8, 'ferncastle').map((search) => stack.execute(DashboardSearchDocument, search)));
      // All eight wait under their deadlines, two of them for their held calls and the rest for a slot.
      await eventually(() => expect(alarms.count).toBe(8));
      await eventually(() => expect(upstream.arrivals).toBe(2));
      upstream.release();
      expect((await answers).map(({ body }) => body.errors)).toEqual(Array.from({ length: 8 }, () => undefined));
      expect(stack.lookup.counters.searchRequests).toBe(8);
      expect(stack.lookup.counters.maxSearchesInFlight).toBeLessThanOrEqual(2);
    } finally {
      await upstream.close();
    }
  });

  it('answers UPSTREAM_TIMEOUT to a call that cannot get a slot within its deadline, and serves normally after', async () => {
    // The first search holds the only slot until the test lets it go; the deadlines ring when the test rings them.
    const upstream = await holdingUpstream('holdings 0');
    const alarms = recordedAlarms();
    try {
      const stack = await start(1, 60_000, { upstreamUrl: upstream.url, deadlineAlarm: alarms.alarm }, upstream);
      alarms.forgetSilenced();
      const answers = searches(3, 'holdings').map((search) => stack.execute(DashboardSearchDocument, search));
      await upstream.reached;
      // Each request waits under its own deadline: the first for its held call, the others for the slot.
      await eventually(() => expect(alarms.count).toBe(3));
      expect(stack.lookup.counters.searchRequests).toBe(0);
      alarms.ringFrom(1);
      const waited = await Promise.all(answers.slice(1));
      expect(waited.map(({ body }) => body.errors?.[0]?.extensions?.code)).toEqual(['UPSTREAM_TIMEOUT', 'UPSTREAM_TIMEOUT']);
      upstream.release();
      expect((await answers[0]!).body.errors).toBeUndefined();
      expect(stack.lookup.counters.maxSearchesInFlight).toBe(1);

      const later = await stack.execute(DashboardSearchDocument, { q: 'holdings', jurisdiction: 'GB' });
      expect(later.body.errors).toBeUndefined();
    } finally {
      await upstream.close();
    }
  });
});
