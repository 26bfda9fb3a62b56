import { print } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allFixtureCompanies } from '../../src/lookup-service/index.js';
import { SearchCompaniesDocument } from '../generated/graphql.js';
import type { AnsweredBy } from '../support/compared-gateways.js';
import { startStack, type Stack } from '../support/stack.js';

/** Selections of the card query (test/operations/search-companies.graphql), fragments expanded. */
const CARD_SELECTIONS = 40;

const answeredBy: AnsweredBy = { compiled: 0, 'graphql-js': 0 };
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    lookup: { companies: allFixtureCompanies },
    // Documents stay parsed (an eighth of the cache, 200 bytes a character): a plan evicted is seen compiled again.
    gateway: { rateLimitPerMinute: 0, responseCache: false, cacheMaxBytes: 512 * 2 ** 20 },
    // Room for two card queries' plans, not three; and none for a card query with a few more selections.
    compiledExecution: {
      selectionsBudget: 2 * CARD_SELECTIONS + 10,
      maxSelections: CARD_SELECTIONS,
      observe: (by) => (answeredBy[by] += 1),
    },
  });
});
afterAll(async () => {
  await stack?.close();
});

/** The card query, made a document of its own by an alias of totalCount, with `extra` selections more. */
function cardQuery(alias: string, extra = 0): string {
  return print(SearchCompaniesDocument).replace('totalCount', `${alias}: totalCount${' reachableCount'.repeat(extra)}`);
}

/** Sends `query` `times` times; how its answers were executed. */
async function send(query: string, times: number): Promise<AnsweredBy> {
  answeredBy.compiled = 0;
  answeredBy['graphql-js'] = 0;
  for (let sent = 0; sent < times; sent++) {
    const answer = await stack.post({ query, variables: { q: 'ferncastle', jurisdiction: 'GB' } });
    expect(answer.status).toBe(200);
  }
  return { ...answeredBy };
}

it('keeps compiled plans within their budget of selections, the least recently used evicted and compiled again only after as many executions', async () => {
  const [a, b, c] = [cardQuery('a'), cardQuery('b'), cardQuery('c')];
  expect(await send(a, 3)).toEqual({ compiled: 1, 'graphql-js': 0 }); // two by graphql-js, then compiled
  expect(await send(b, 3)).toEqual({ compiled: 1, 'graphql-js': 0 });
  expect(await send(a, 1)).toEqual({ compiled: 1, 'graphql-js': 0 }); // a's plan kept, now the most recently used
  expect(await send(c, 3)).toEqual({ compiled: 1, 'graphql-js': 0 }); // b's plan evicted for c's
  expect(await send(a, 1)).toEqual({ compiled: 1, 'graphql-js': 0 });
  expect(await send(b, 2)).toEqual({ compiled: 0, 'graphql-js': 0 }); // counted again from nothing
  expect(await send(b, 1)).toEqual({ compiled: 1, 'graphql-js': 0 });
});

it('leaves an operation with more selections than maxSelections to graphql-js', async () => {
  expect(await send(cardQuery('big', 1), 5)).toEqual({ compiled: 0, 'graphql-js': 0 });
});

it('counts the text of a document its plan keeps alive against the budget: long documents of one selection evict one another', async () => {
  // Over 2,048 characters, a plan counts one selection more; a comment is text the document limits let through.
  const long = (name: string) => `query ${name} { __typename }\n#${'x'.repeat(9_000)}`;
  expect(await send(long('L0'), 3)).toEqual({ compiled: 1, 'graphql-js': 0 });
  // 16 plans of 1 + 5 = 6 each would need 96 of the 90.
  for (let other = 1; other <= 15; other++) expect(await send(long(`L${other}`), 3)).toEqual({ compiled: 1, 'graphql-js': 0 });
  expect(await send(long('L0'), 1)).toEqual({ compiled: 0, 'graphql-js': 0 });
});
