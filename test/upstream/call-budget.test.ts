import { describe, expect, it } from 'vitest';
import { UpstreamBudgetSpentError } from '../../src/errors/upstream-errors.js';
import { CallBudget } from '../../src/upstream/resilience/call-budget.js';
import { manualClock } from '../support/clock.js';

describe('CallBudget (one instance)', () => {
  it('allows its calls per minute, refilled at that rate, and names the wait when spent', async () => {
    const clock = manualClock();
    const budget = new CallBudget({ perMinute: 3, clock });
    for (let i = 0; i < 3; i++) await budget.take('GET /search', false);
    const spent = await budget.take('GET /search', false).catch((error: unknown) => error);
    expect(spent).toBeInstanceOf(UpstreamBudgetSpentError);
    expect((spent as Error).message).toContain('try again in 20 s');
    clock.advance(20_000);
    await budget.take('GET /search', false);
    await expect(budget.take('GET /search', false)).rejects.toBeInstanceOf(UpstreamBudgetSpentError);
  });

  it('lets background refreshes give way while less than a fifth is left', async () => {
    const clock = manualClock();
    const budget = new CallBudget({ perMinute: 10, clock });
    // Eight calls leave two, a fifth: a refresh may not take one, a request may.
    for (let i = 0; i < 8; i++) await budget.take('GET /search', true);
    await expect(budget.take('GET /search', true)).rejects.toBeInstanceOf(UpstreamBudgetSpentError);
    await budget.take('GET /search', false);
    await budget.take('GET /search', false);
    await expect(budget.take('GET /search', false)).rejects.toBeInstanceOf(UpstreamBudgetSpentError);
  });
});
