import { describe, expect, it } from 'vitest';
import { UpstreamBudgetSpentError } from '../../../src/errors/upstream-errors.js';
import { CallBudget } from '../../../src/upstream/resilience/call-budget.js';
import { manualClock } from '../../support/clock.js';

describe('CallBudget (one instance)', () => {
  it('allows its calls per minute, refilled at that rate, and names the wait when spent', () => {
    const clock = manualClock();
    const budget = new CallBudget({ perMinute: 3, clock });
    for (let i = 0; i < 3; i++) budget.take('GET /search', false);
    expect(() => budget.take('GET /search', false)).toThrow(UpstreamBudgetSpentError);
    expect(() => budget.take('GET /search', false)).toThrow('try again in 20 s');
    clock.advance(20_000);
    budget.take('GET /search', false);
    expect(() => budget.take('GET /search', false)).toThrow(UpstreamBudgetSpentError);
  });

  it('lets background refreshes give way while less than a fifth is left', () => {
    const clock = manualClock();
    const budget = new CallBudget({ perMinute: 10, clock });
    // Eight calls leave two, a fifth: a refresh may not take one, a request may.
    for (let i = 0; i < 8; i++) budget.take('GET /search', true);
    expect(() => budget.take('GET /search', true)).toThrow(UpstreamBudgetSpentError);
    budget.take('GET /search', false);
    budget.take('GET /search', false);
    expect(() => budget.take('GET /search', false)).toThrow(UpstreamBudgetSpentError);
  });
});
