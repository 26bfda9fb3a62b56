import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { errorCode as searchErrorCode } from '../../support/answers.js';
import { manualClock, type ManualClock } from '../../support/clock.js';
import { startStack, type Stack } from '../../support/stack.js';
import { freshSearch } from '../../support/searches.js';

const FAILURES = 3;
const COOLDOWN_MS = 400;

let stack: Stack;
/** The gateway's clock: cool-downs end when the test moves it on. */
let clock: ManualClock;

beforeEach(async () => {
  clock = manualClock();
  stack = await startStack({
    clock,
    gateway: { upstreamRetries: 0, upstreamBreakerFailures: FAILURES, upstreamBreakerCooldownMs: COOLDOWN_MS },
  });
  // The token is fetched while the upstream is healthy, so only searches fail below.
  await stack.execute(DashboardSearchDocument, { q: 'warm up', jurisdiction: 'GB' });
  stack.lookup.counters.reset();
});
afterEach(() => stack.close());

const errorCode = (search = freshSearch()) => searchErrorCode(stack, search);

async function openTheCircuit() {
  stack.lookup.knobs.failSearch({ status: 503 }, Number.POSITIVE_INFINITY);
  for (let failure = 0; failure < FAILURES; failure++) expect(await errorCode()).toBe('UPSTREAM_UNAVAILABLE');
  expect(stack.lookup.counters.searchRequests).toBe(FAILURES);
}

describe('circuit breaker', () => {
  it('stops calling the upstream after a run of failures and answers UPSTREAM_UNAVAILABLE at once', async () => {
    await openTheCircuit();
    // A search the upstream would hold for a minute: answered at once all the same, as none is made.
    stack.lookup.knobs.searchLatencyMs = 60_000;
    const { body } = await stack.execute(DashboardSearchDocument, freshSearch());
    expect(body.errors).toEqual([
      expect.objectContaining({
        // The 400 ms cool-down, told in whole seconds.
        message: 'The company lookup service keeps failing, so the gateway is not calling it for the next 1 s; try again then.',
        extensions: { requestId: expect.any(String), code: 'UPSTREAM_UNAVAILABLE' },
      }),
    ]);
    expect(stack.lookup.counters.searchRequests).toBe(FAILURES);
    expect(stack.logs.some((line) => line.includes('holding calls back'))).toBe(true);
  });

  it('lets exactly one probe through after the cool-down, and closes again when it succeeds', async () => {
    await openTheCircuit();
    clock.advance(COOLDOWN_MS + 50);
    stack.lookup.knobs.clearFaults();
    // The probe is still out when the other four arrive, however busy the machine.
    stack.lookup.knobs.searchLatencyMs = 1_000;
    stack.lookup.counters.reset();

    const answers = await Promise.all(Array.from({ length: 5 }, () => errorCode()));
    expect(answers.filter((code) => code === undefined)).toHaveLength(1);
    expect(answers.filter((code) => code === 'UPSTREAM_UNAVAILABLE')).toHaveLength(4);
    expect(stack.lookup.counters.searchRequests).toBe(1);

    stack.lookup.knobs.searchLatencyMs = 0;
    expect(await Promise.all(Array.from({ length: 5 }, () => errorCode()))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(stack.lookup.counters.searchRequests).toBe(6);
  });

  it('opens again when the probe fails', async () => {
    await openTheCircuit();
    clock.advance(COOLDOWN_MS + 50);
    stack.lookup.counters.reset();
    expect(await errorCode()).toBe('UPSTREAM_UNAVAILABLE');
    expect(stack.lookup.counters.searchRequests).toBe(1);
    expect(await errorCode()).toBe('UPSTREAM_UNAVAILABLE');
    expect(stack.lookup.counters.searchRequests).toBe(1);

    stack.lookup.knobs.clearFaults();
    clock.advance(COOLDOWN_MS + 50);
    expect(await errorCode()).toBeUndefined();
    expect(await errorCode()).toBeUndefined();
    expect(stack.lookup.counters.searchRequests).toBe(3);
  });

  it('holds calls back after a run of 429s, for as long as the upstream asks, answering UPSTREAM_RATE_LIMITED', async () => {
    stack.lookup.knobs.failSearch({ status: 429, headers: { 'retry-after': '1' } }, FAILURES);
    for (let failure = 0; failure < FAILURES; failure++) expect(await errorCode()).toBe('UPSTREAM_RATE_LIMITED');
    clock.advance(COOLDOWN_MS + 50);
    const { body } = await stack.execute(DashboardSearchDocument, freshSearch());
    expect(body.errors).toEqual([
      expect.objectContaining({
        message:
          'The company lookup service is limiting how often the gateway may call it, so the gateway is not calling it for the next 1 s; try again then.',
        extensions: { requestId: expect.any(String), code: 'UPSTREAM_RATE_LIMITED' },
      }),
    ]);
    expect(stack.lookup.counters.searchRequests).toBe(FAILURES);
    clock.advance(1_000 - COOLDOWN_MS);
    expect(await errorCode()).toBeUndefined();
  });
});
