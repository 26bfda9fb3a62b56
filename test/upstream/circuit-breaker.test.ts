import { describe, expect, it } from 'vitest';
import { UpstreamCircuitOpenError, UpstreamRateLimitHoldError } from '../../src/errors/upstream-errors.js';
import { CircuitBreaker } from '../../src/upstream/resilience/circuit-breaker.js';
import { manualClock } from '../support/clock.js';
import { recordingLog } from '../support/upstream-log.js';

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

  it('caps a Retry-After at maxRetryAfterMs: the upstream does not decide how long calls stop', () => {
    const { breaker: circuit, clock } = breaker(1);
    circuit.recordFailure({ rateLimited: true, retryAfterMs: 86_400_000 });
    clock.advance(MAX_RETRY_AFTER_MS - 1);
    expect(refusal(circuit)).toBeInstanceOf(UpstreamRateLimitHoldError);
    clock.advance(1);
    expect(refusal(circuit)).toBeUndefined();
  });

  it('never holds back for less than the cool-down, whatever a Retry-After says', () => {
    const { breaker: circuit, clock } = breaker(1);
    circuit.recordFailure({ retryAfterMs: 1 });
    clock.advance(COOLDOWN_MS - 1);
    expect(refusal(circuit)).toBeInstanceOf(UpstreamCircuitOpenError);
  });
});
