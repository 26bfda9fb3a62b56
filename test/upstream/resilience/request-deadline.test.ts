import { print } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { type HoldingUpstream, holdingUpstream, leaveWhileHeld } from '../../support/holding-upstream.js';
import { recordedAlarms } from '../../support/recorded-alarms.js';
import { startStack, type Stack, type StackOptions } from '../../support/stack.js';
import { eventually } from '../../support/within.js';

let stack: Stack | undefined;
afterEach(() => stack?.close());

async function start(options: StackOptions, upstream?: HoldingUpstream) {
  stack = await startStack(options);
  upstream?.forwardTo(stack.lookup.url);
  // The token is fetched before the upstream turns slow, so only searches are slow below.
  await stack.execute(DashboardSearchDocument, { q: 'warm up', jurisdiction: 'GB' });
  stack.lookup.counters.reset();
  return stack;
}

/** Long enough that only the rung alarm can end the wait, however busy the machine: the deadline is never passed before the call starts. */
const DEADLINE_MS = 60_000;

describe('request deadline', () => {
  let upstream: HoldingUpstream | undefined;
  afterEach(() => upstream?.close());

  it('answers UPSTREAM_TIMEOUT when the deadline rings while the upstream holds the search, and normally once it has answered', async () => {
    upstream = await holdingUpstream('ferncastle');
    const alarms = recordedAlarms();
    const stack = await start(
      {
        upstreamUrl: upstream.url,
        deadlineAlarm: alarms.alarm,
        gateway: { requestDeadlineMs: DEADLINE_MS, upstreamHeadersTimeoutMs: 120_000 },
      },
      upstream,
    );
    alarms.forgetSilenced();

    const answering = stack.execute(DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' });
    await upstream.reached;
    alarms.ringTheOnlyOne(DEADLINE_MS);
    const { body } = await answering;
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: 'The company lookup service did not answer in time; try again shortly.',
        extensions: { requestId: expect.any(String), code: 'UPSTREAM_TIMEOUT' },
      }),
    ]);

    // The call runs on past its caller's deadline, and its window serves the next request without another call.
    upstream.release();
    await eventually(() => expect(stack.lookup.counters.searchesAnswered).toBe(1), 10);
    const recovered = await stack.execute(DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' });
    expect(recovered.body.errors).toBeUndefined();
    expect(recovered.body.data!.searchCompanies.nodes).toHaveLength(10);
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });
});

describe('a client that leaves', () => {
  let upstream: HoldingUpstream | undefined;
  afterEach(() => upstream?.close());

  /** A stack whose upstream holds the search for `q` until released; the token is fetched before, so only that search waits. */
  async function startHolding(q: string) {
    upstream = await holdingUpstream(q);
    const stack = await start({ upstreamUrl: upstream.url, gateway: { responseCache: false } }, upstream);
    return { stack, upstream };
  }

  it('does not cancel the upstream call it started: the answer is cached for the next client', async () => {
    const { stack, upstream } = await startHolding('ferncastle');
    const query = { query: print(DashboardSearchDocument), variables: { q: 'ferncastle', jurisdiction: 'GB' } };
    await leaveWhileHeld(stack, upstream, query);
    upstream.release();
    // The call runs on without its client: the lookup service answers it, and the gateway caches the window.
    await eventually(() => expect(stack.lookup.counters.searchesAnswered).toBe(1), 10);
    await eventually(() => expect(stack.lookup.counters.searchesInFlight).toBe(0), 10);

    const next = await stack.execute(DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' });
    expect(next.body.errors).toBeUndefined();
    expect(next.body.data!.searchCompanies.nodes).toHaveLength(10);
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });

  it('does not cancel a call other clients are waiting for', async () => {
    const { stack, upstream } = await startHolding('ferncastle');
    const query = { query: print(DashboardSearchDocument), variables: { q: 'ferncastle', jurisdiction: 'GB' } };
    const staying = stack.execute(DashboardSearchDocument, { q: 'ferncastle', jurisdiction: 'GB' });
    await leaveWhileHeld(stack, upstream, query);
    upstream.release();
    const stayed = await staying;
    expect(stayed.body.errors).toBeUndefined();
    expect(stayed.body.data!.searchCompanies.nodes).toHaveLength(10);
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });
});
