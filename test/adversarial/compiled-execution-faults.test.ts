import { print } from 'graphql';
import type * as GraphqlJit from 'graphql-jit';
import { describe, expect, it, vi } from 'vitest';
import { SearchCompaniesDocument } from '../generated/graphql.js';
import { comparedGateways, operation } from '../support/compared-gateways.js';
import { send } from '../support/http.js';

/** Where graphql-jit is made to fail: compiling, its compiled query throwing, or its answer rejecting after the upstream was called. */
const fault: { at: 'compile' | 'throw' | 'reject' | null; runs: number; compiles: number } = { at: null, runs: 0, compiles: 0 };

vi.mock('graphql-jit', async (original) => {
  const jit = await original<typeof GraphqlJit>();
  return {
    ...jit,
    compileQuery: (...args: Parameters<typeof jit.compileQuery>) => {
      fault.compiles += 1;
      if (fault.at === 'compile') throw new Error('graphql-jit failed to compile');
      const compiled = jit.compileQuery(...args);
      if (!('query' in compiled)) return compiled;
      const { query } = compiled;
      return Object.assign(compiled, {
        query: (root: unknown, context: unknown, variables: Parameters<typeof query>[2]) => {
          fault.runs += 1;
          if (fault.at === 'throw') throw new Error('graphql-jit failed to run');
          const result = query(root, context, variables);
          return fault.at === 'reject' ? Promise.resolve(result).then(() => Promise.reject(new Error('graphql-jit failed late'))) : result;
        },
      });
    },
  };
});

const gateways = comparedGateways();

const SENDS = 5;

describe('graphql-jit failing', () => {
  it.each([
    ['to compile', 'compile', 'ferncastle', 0],
    ['when its compiled query runs', 'throw', 'ferncastle dormant', 1],
    ['after its compiled query called the upstream', 'reject', 'ferncastle liquidation', 1],
  ] as const)('%s: graphql-js answers as without it, the upstream called as often, the plan dropped', async (_, at, q, runs) => {
    fault.at = at;
    fault.runs = 0;
    fault.compiles = 0;
    try {
      const stacks = [gateways.compiled, gateways.reference];
      for (const stack of stacks) stack.lookup.counters.reset();
      // A document of its own per case (an alias), compiled afresh on the third send.
      const document = print(SearchCompaniesDocument).replace('totalCount', `${at}: totalCount`);
      const request = { path: '/graphql', ...operation(document, { q, jurisdiction: 'GB', pageSize: 50 }) };
      for (let sent = 0; sent < SENDS; sent++) {
        // The upstream's windows expire between sends (the gateways' clock is faked): each send searches the upstream once.
        vi.setSystemTime(Date.now() + 60_000);
        const expected = await send(gateways.reference.gateway.url, request);
        const answer = await send(gateways.compiled.gateway.url, request);
        expect({ status: answer.status, body: answer.text }).toEqual({ status: expected.status, body: expected.text });
      }
      expect(stacks.map((stack) => stack.lookup.counters.searchRequests)).toEqual([SENDS, SENDS]);
      // The failing plan ran once at most: dropped, graphql-js answered from then on.
      expect(fault.runs).toBe(runs);
      // Compiled once: a document that failed is not compiled again on each send.
      expect(fault.compiles).toBe(1);
    } finally {
      fault.at = null;
    }
  });

  it('is never asked by the reference gateway (compiledExecution: false), whose answers the comparisons take for graphql-js', async () => {
    fault.compiles = 0;
    const document = print(SearchCompaniesDocument).replace('totalCount', 'reference: totalCount');
    const request = { path: '/graphql', ...operation(document, { q: 'ferncastle', jurisdiction: 'GB' }) };
    for (let sent = 0; sent < SENDS; sent++) expect((await send(gateways.reference.gateway.url, request)).status).toBe(200);
    expect(fault.compiles).toBe(0);
    // The same query repeated compiles on the other gateway: the count would have seen it.
    for (let sent = 0; sent < SENDS; sent++) expect((await send(gateways.compiled.gateway.url, request)).status).toBe(200);
    expect(fault.compiles).toBe(1);
  });
});
