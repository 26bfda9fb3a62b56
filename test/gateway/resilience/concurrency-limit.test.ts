import { afterEach, describe, expect, it } from 'vitest';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { startStack, type Stack } from '../../support/stack.js';

let stack: Stack | undefined;
afterEach(() => stack?.close());

async function start(upstreamMaxInFlight: number, requestDeadlineMs = 10_000) {
  stack = await startStack({ gateway: { upstreamMaxInFlight, requestDeadlineMs, upstreamRetries: 0 } });
  await stack.execute(DashboardSearchDocument, { q: 'warm up', jurisdiction: 'GB' });
  stack.lookup.counters.reset();
  return stack;
}

function searches(count: number, prefix: string) {
  return Array.from({ length: count }, (_, index) => ({ q: `${prefix} ${index}`, jurisdiction: 'GB' }));
}

describe('upstream concurrency limit', () => {
  it('keeps at most N calls in flight and queues the rest, answering all of them', async () => {
    const stack = await start(2);
    stack.lookup.knobs.searchLatencyMs = 100;
    const answers = await Promise.all(searches(8, 'ferncastle').map((search) => stack.execute(DashboardSearchDocument, search)));
    expect(answers.map(({ body }) => body.errors)).toEqual(Array.from({ length: 8 }, () => undefined));
    expect(stack.lookup.counters.searchRequests).toBe(8);
    expect(stack.lookup.counters.maxSearchesInFlight).toBe(2);
  });

  it('answers UPSTREAM_TIMEOUT to a call that cannot get a slot within its deadline, and serves normally after', async () => {
    const stack = await start(1, 500);
    stack.lookup.knobs.searchLatencyMs = 350;
    const startedAt = performance.now();
    const answers = await Promise.all(searches(3, 'holdings').map((search) => stack.execute(DashboardSearchDocument, search)));
    expect(performance.now() - startedAt).toBeLessThan(1_500);
    const codes = answers.map(({ body }) => body.errors?.[0]?.extensions?.code);
    expect(codes[0]).toBeUndefined();
    expect(codes.slice(1)).toEqual(['UPSTREAM_TIMEOUT', 'UPSTREAM_TIMEOUT']);
    expect(stack.lookup.counters.maxSearchesInFlight).toBe(1);

    stack.lookup.knobs.searchLatencyMs = 0;
    const later = await stack.execute(DashboardSearchDocument, { q: 'holdings', jurisdiction: 'GB' });
    expect(later.body.errors).toBeUndefined();
  });
});
