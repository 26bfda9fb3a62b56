import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ lookup: { searchLatencyMs: 300 } });
});
afterAll(() => stack.lookup.close());

describe('shutdown', () => {
  it('finishes the request in flight, then closes keep-alive connections without waiting for them to time out', async () => {
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const search = (q: string) =>
      request(stack.gateway.graphqlUrl, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount } }` }),
      });
    await (await search('warm up')).body.text();
    const inFlight = search('Zebra Quantum');
    await new Promise((resolve) => setTimeout(resolve, 50));

    const closingAt = performance.now();
    const closed = stack.gateway.close();
    const response = await inFlight;
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(await response.body.text())).toEqual({ data: { searchCompanies: { totalCount: 1 } } });
    await closed;
    // The search takes 300 ms; an idle keep-alive socket left open would hold close() for seconds more.
    expect(performance.now() - closingAt).toBeLessThan(2_000);
    await agent.close();
  });
});
