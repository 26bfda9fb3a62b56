import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fragmentDiamond } from '../../support/fragment-diamond.js';
import { startStack, type Stack } from '../../support/stack.js';
import { SAFETY_MS } from '../../support/within.js';

/**
 * A document of a thousand characters can stand for billions of selections
 * once its fragments are expanded. The gateway shares one thread between all
 * requests, so one walk that expands them would stall every other answer:
 * each diamond below is sent together with a /health request, and both must
 * come back (the gateway runs in this very process, so a stalled walk would
 * stall the test too, and fail it on its timeout).
 */
const SAFETY_TIMEOUT_MS = SAFETY_MS;

async function withHealth(query: string) {
  const [answer, health] = await Promise.all([stack.post({ query }), stack.get('/health')]);
  expect(health.status).toBe(200);
  return { status: answer.status, body: JSON.parse(answer.text) };
}

let stack: Stack;

describe('with the default limits', () => {
  beforeAll(async () => {
    stack = await startStack({ gateway: { rateLimitPerMinute: 0 } });
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.lookup.counters.reset());

  it.each([24, 40, 60])(
    'refuses a %i-level fragment diamond with OPERATION_TOO_COMPLEX while /health answers',
    async (levels) => {
      const { status, body } = await withHealth(fragmentDiamond(levels));
      expect(status).toBe(400);
      expect(body).toEqual({
        errors: [
          {
            message: `This document holds ${2 ** (levels + 2) - 1 > Number.MAX_SAFE_INTEGER ? `more than ${Number.MAX_SAFE_INTEGER}` : 2 ** (levels + 2) - 1} selections once its fragments are expanded where they are spread; at most 2000 are allowed. Spread each fragment fewer times, or send a smaller operation`,
            extensions: { requestId: expect.any(String), code: 'OPERATION_TOO_COMPLEX' },
          },
        ],
      });
      expect(stack.lookup.counters.searchRequests).toBe(0);
    },
    SAFETY_TIMEOUT_MS,
  );

  it('answers a diamond that stays within MAX_EXPANDED_SELECTIONS', async () => {
    // 2^(8+2) - 1 = 1023 selections.
    const { status, body } = await withHealth(fragmentDiamond(8));
    expect(status).toBe(200);
    expect(body).toEqual({ data: { searchCompanies: { totalCount: 1 } } });
    expect(stack.lookup.counters.searchRequests).toBe(1);
  });

  // graphql-js gives up on its check that same-named fields merge, and said only "Validation aborted.".
  it('says what to do about a document graphql-js gives up validating, as OPERATION_TOO_COMPLEX', async () => {
    const { status, body } = await withHealth(`{ company(jurisdiction: "GB", companyNumber: "1") { ${'id '.repeat(980)} } }`);
    expect(status).toBe(400);
    expect(body.errors).toEqual([
      {
        message:
          'Validation stopped: this operation writes the same fields, or spreads the same fragments, so many times that checking them would take too long. Write each field once per selection set, and spread fewer fragments that select the same fields',
        extensions: { requestId: expect.any(String), code: 'OPERATION_TOO_COMPLEX' },
      },
    ]);
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });
});

describe('with MAX_EXPANDED_SELECTIONS set low', () => {
  beforeAll(async () => {
    stack = await startStack({ gateway: { rateLimitPerMinute: 0, maxExpandedSelections: 7 } });
  });
  afterAll(() => stack.close());

  it('allows exactly MAX_EXPANDED_SELECTIONS and refuses one more, counting unused fragments too', async () => {
    const seven = '{ __typename ...F ...F } fragment F on Query { a: __typename b: __typename }';
    expect(JSON.parse((await stack.post({ query: seven })).text)).toEqual({ data: { __typename: 'Query', a: 'Query', b: 'Query' } });
    const { status, text } = await stack.post({ query: `${seven} fragment Unused on Query { __typename }` });
    expect(status).toBe(400);
    expect(JSON.parse(text).errors).toEqual([
      {
        message:
          'This document holds 8 selections once its fragments are expanded where they are spread; at most 7 are allowed. Spread each fragment fewer times, or send a smaller operation',
        extensions: { requestId: expect.any(String), code: 'OPERATION_TOO_COMPLEX' },
      },
    ]);
  });
});

describe('with MAX_EXPANDED_SELECTIONS out of the way', () => {
  beforeAll(async () => {
    // Past what the settings accept, so that every other walk over the document meets the whole diamond: validation,
    // the armor rules, the introspection guard, the answer's size (2^60 pages, counted), the search budget and execution.
    stack = await startStack({
      gateway: {
        rateLimitPerMinute: 0,
        introspection: false,
        maxExpandedSelections: Number.MAX_SAFE_INTEGER,
        maxResultFields: Number.MAX_SAFE_INTEGER,
      },
    });
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.lookup.counters.reset());

  it(
    'runs a 60-level diamond, each walk following each fragment once, while /health answers',
    async () => {
      const { status, body } = await withHealth(fragmentDiamond(60));
      expect(status).toBe(200);
      expect(body).toEqual({ data: { searchCompanies: { totalCount: 1 } } });
      expect(stack.lookup.counters.searchRequests).toBe(1);
    },
    SAFETY_TIMEOUT_MS,
  );
});
