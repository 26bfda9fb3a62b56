import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamCircuitOpenError, UpstreamRateLimitHoldError } from '../../../src/errors/upstream-errors.js';
import { CircuitBreaker } from '../../../src/upstream/resilience/circuit-breaker.js';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { errorCode as searchErrorCode } from '../../support/answers.js';
import { manualClock, type ManualClock } from '../../support/clock.js';
import { freshSearch } from '../../support/searches.js';
import { startStack, type Stack } from '../../support/stack.js';
import { recordingLog } from '../../support/upstream-log.js';

const WHERE = 'GET /v1/company/search';
const COOLDOWN_MS = 5_000;
const MAX_RETRY_AFTER_MS = 20_000;

function breaker(failureThreshold = 3) {
  const clock = manualClock(0);
  const log = recordingLog();
  return {
    clock,
    log,
    breaker: new CircuitBreaker({ failureThreshold, cooldownMs: COOLDOWN_MS, maxRetryAfterMs: MAX_RETRY_AFTER_MS, log, clock }),
  };
}

/** What admit() throws, or undefined when it lets the call through. */
function refusal(circuit: CircuitBreaker): unknown {
  try {
    circuit.admit(WHERE);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('CircuitBreaker', () => {
  it('opens after failureThreshold failures in a row, not before', () => {
    const { breaker: circuit, log } = breaker(3);
    circuit.recordFailure();
    circuit.recordFailure();
    expect(refusal(circuit)).toBeUndefined();
    circuit.recordFailure();
    const error = refusal(circuit);
    expect(error).toBeInstanceOf(UpstreamCircuitOpenError);
    expect((error as Error).message).toContain('not calling it for the next 5 s');
    expect(log.messages).toEqual(['Company lookup service keeps failing; holding calls back']);
  });

  it('counts failures in a row only: a success in between starts the count again', () => {
    const { breaker: circuit } = breaker(3);
    circuit.recordFailure();
    circuit.recordFailure();
    circuit.recordSuccess();
    circuit.recordFailure();
    circuit.recordFailure();
    expect(refusal(circuit)).toBeUndefined();
  });

  it('holds calls back for the cool-down, then lets exactly one probe through', () => {
    const { breaker: circuit, clock } = breaker(1);
    circuit.recordFailure();
    clock.advance(COOLDOWN_MS - 1);
    expect(refusal(circuit)).toBeInstanceOf(UpstreamCircuitOpenError);
    clock.advance(1);
    expect(refusal(circuit)).toBeUndefined();
    // While the probe is out, every other call is held back.
    expect(refusal(circuit)).toBeInstanceOf(UpstreamCircuitOpenError);
    expect(refusal(circuit)).toBeInstanceOf(UpstreamCircuitOpenError);
  });

  it('closes when the probe succeeds', () => {
    const { breaker: circuit, clock, log } = breaker(1);
    circuit.recordFailure();
    clock.advance(COOLDOWN_MS);
    expect(refusal(circuit)).toBeUndefined();
    circuit.recordSuccess();
    expect([refusal(circuit), refusal(circuit), refusal(circuit)]).toEqual([undefined, undefined, undefined]);
    expect(log.messages.at(-1)).toBe('Company lookup service answered the probe; calls resume');
  });

  it('opens again for a whole cool-down when the probe fails', () => {
    const { breaker: circuit, clock } = breaker(1);
    circuit.recordFailure();
    clock.advance(COOLDOWN_MS);
    expect(refusal(circuit)).toBeUndefined();
    circuit.recordFailure();
    clock.advance(COOLDOWN_MS - 1);
    expect(refusal(circuit)).toBeInstanceOf(UpstreamCircuitOpenError);
    clock.advance(1);
    expect(refusal(circuit)).toBeUndefined();
  });

  it('holds back for as long as a Retry-After asks when that is longer, told as a rate limit', () => {
    const { breaker: circuit, clock } = breaker(1);
    circuit.recordFailure({ rateLimited: true, retryAfterMs: 12_000 });
    clock.advance(COOLDOWN_MS);
    const error = refusal(circuit);
    expect(error).toBeInstanceOf(UpstreamRateLimitHoldError);
    expect((error as Error).message).toContain('not calling it for the next 7 s');
    clock.advance(12_000 - COOLDOWN_MS);
    expect(refusal(circuit)).toBeUndefined();
  });

  it.each([86_400_000, 1e12])(
    'caps a Retry-After of %d ms at maxRetryAfterMs: the upstream does not decide how long calls stop',
    (retryAfterMs) => {
      const { breaker: circuit, clock } = breaker(1);
      circuit.recordFailure({ rateLimited: true, retryAfterMs });
      clock.advance(MAX_RETRY_AFTER_MS - 1);
      expect(refusal(circuit)).toBeInstanceOf(UpstreamRateLimitHoldError);
      clock.advance(1);
      expect(refusal(circuit)).toBeUndefined();
    },
  );

  it('never holds back for less than the cool-down, whatever a Retry-After says', () => {
    const { breaker: circuit, clock } = breaker(1);
    circuit.recordFailure({ retryAfterMs: 1 });
    clock.advance(COOLDOWN_MS - 1);
    expect(refusal(circuit)).toBeInstanceOf(UpstreamCircuitOpenError);
  });
});

describe('the circuit breaker in a running gateway', () => {
  const FAILURES = 3;
  const STACK_COOLDOWN_MS = 400;

  let stack: Stack;
  /** The gateway's clock: cool-downs end when the test moves it on. */
  let clock: ManualClock;

  beforeEach(async () => {
    clock = manualClock();
    stack = await startStack({
      clock,
      gateway: { upstreamRetries: 0, upstreamBreakerFailures: FAILURES, upstreamBreakerCooldownMs: STACK_COOLDOWN_MS },
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
    clock.advance(STACK_COOLDOWN_MS + 50);
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
    clock.advance(STACK_COOLDOWN_MS + 50);
    stack.lookup.counters.reset();
    expect(await errorCode()).toBe('UPSTREAM_UNAVAILABLE');
    expect(stack.lookup.counters.searchRequests).toBe(1);
    expect(await errorCode()).toBe('UPSTREAM_UNAVAILABLE');
    expect(stack.lookup.counters.searchRequests).toBe(1);

    stack.lookup.knobs.clearFaults();
    clock.advance(STACK_COOLDOWN_MS + 50);
    expect(await errorCode()).toBeUndefined();
    expect(await errorCode()).toBeUndefined();
    expect(stack.lookup.counters.searchRequests).toBe(3);
  });

  it('holds calls back after a run of 429s, for as long as the upstream asks, answering UPSTREAM_RATE_LIMITED', async () => {
    stack.lookup.knobs.failSearch({ status: 429, headers: { 'retry-after': '1' } }, FAILURES);
    for (let failure = 0; failure < FAILURES; failure++) expect(await errorCode()).toBe('UPSTREAM_RATE_LIMITED');
    clock.advance(STACK_COOLDOWN_MS + 50);
    const { body } = await stack.execute(DashboardSearchDocument, freshSearch());
    expect(body.errors).toEqual([
      expect.objectContaining({
        message:
          'The company lookup service is limiting how often the gateway may call it, so the gateway is not calling it for the next 1 s; try again then.',
        extensions: { requestId: expect.any(String), code: 'UPSTREAM_RATE_LIMITED' },
      }),
    ]);
    expect(stack.lookup.counters.searchRequests).toBe(FAILURES);
    clock.advance(1_000 - STACK_COOLDOWN_MS);
    expect(await errorCode()).toBeUndefined();
  });
});
