import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import type { Fault, TokenAnswer } from '../../src/lookup-service/index.js';
import { DashboardSearchDocument } from '../generated/graphql.js';
import { manualClock, type ManualClock } from '../support/clock.js';
import { freshSearch } from '../support/searches.js';
import { startStack, type Stack } from '../support/stack.js';

/** The token lifetimes the gateway uses when none are set. */
const DEFAULTS = readConfig({});

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function start(clock: ManualClock): Promise<Stack> {
  // No rate limit: the storm tests send far more than a client's burst.
  stack = await startStack({ clock, gateway: { rateLimitPerMinute: 0 } });
  return stack;
}

async function search(stack: Stack) {
  const { body } = await stack.execute(DashboardSearchDocument, freshSearch());
  return { code: body.errors?.[0]?.extensions?.code };
}

/** `searches` searches one after the other, the clock `stepMs` on before each; the error codes they got. */
async function searchesOverTime(stack: Stack, clock: ManualClock, searches: number, stepMs: number) {
  const codes = [];
  for (let i = 0; i < searches; i++) {
    clock.advance(stepMs);
    codes.push((await search(stack)).code);
  }
  return codes;
}

describe('a token answer the gateway cannot use', () => {
  const CLIENTS = 16;
  const ROUNDS = 15;
  const STEP_MS = 4_000;

  const asMac = (answer: TokenAnswer) => ({ ...answer, token_type: 'mac' });
  const unusable: [string, string, (stack: Stack) => void][] = [
    ['token_type mac', 'UPSTREAM_BAD_RESPONSE', (stack) => (stack.lookup.knobs.mapTokenAnswer = asMac)],
    ['no access_token', 'UPSTREAM_BAD_RESPONSE', (stack) => stack.lookup.knobs.failToken({ kind: 'wrong-shape' }, Infinity)],
    [
      'an access_token no header can carry',
      'UPSTREAM_BAD_RESPONSE',
      (stack) => (stack.lookup.knobs.mapTokenAnswer = (answer) => ({ ...answer, access_token: 'two\nlines' })),
    ],
    ['a body that is not JSON', 'UPSTREAM_BAD_RESPONSE', (stack) => stack.lookup.knobs.failToken({ kind: 'malformed-json' }, Infinity)],
    ['500', 'UPSTREAM_UNAVAILABLE', (stack) => stack.lookup.knobs.failToken({ status: 500 } satisfies Fault, Infinity)],
    ['a dropped connection', 'UPSTREAM_UNAVAILABLE', (stack) => stack.lookup.knobs.failToken({ kind: 'drop-connection' }, Infinity)],
  ];

  it.each(unusable)('(%s) is asked for a few times a minute, not once per search', async (_name, code, breakTokens) => {
    const clock = manualClock();
    const stack = await start(clock);
    breakTokens(stack);
    const codes: unknown[] = [];
    // A minute of 16 clients searching together every 4 s.
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(Array.from({ length: CLIENTS }, () => search(stack)));
      codes.push(...answers.map((answer) => answer.code));
      clock.advance(STEP_MS);
    }
    // Backoff of 1, 2, 4, 8, 16 then 30 s: token requests at 0, 4, 8, 12, 20 and 36 s.
    expect(stack.lookup.counters.tokenRequests).toBeLessThanOrEqual(6);
    expect(stack.lookup.counters.searchRequests).toBe(0);
    expect(codes).toHaveLength(CLIENTS * ROUNDS);
    // The failure's own code, or UPSTREAM_UNAVAILABLE once the token failures have opened the circuit.
    expect([...new Set(codes)].filter((code) => code !== 'UPSTREAM_UNAVAILABLE')).toEqual(code === 'UPSTREAM_UNAVAILABLE' ? [] : [code]);
    // Each failure is logged once, not once per search that got its error.
    const failures = stack.logs.filter((line) => line.includes('gave no usable service token'));
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.length).toBeLessThanOrEqual(6);

    stack.lookup.knobs.clearFaults();
    clock.advance(30_000);
    expect(await search(stack)).toMatchObject({ code: undefined });
    expect(stack.lookup.counters.searchesAnswered).toBe(1);
  });
});

describe('a token answer read tolerantly', () => {
  it('uses a token without expires_in for the default lifetime, then renews it', async () => {
    const clock = manualClock();
    const stack = await start(clock);
    stack.lookup.knobs.mapTokenAnswer = ({ access_token, token_type }) => ({ access_token, token_type });
    const codes = await searchesOverTime(stack, clock, 10, 1_000);
    expect(codes).toEqual(Array(10).fill(undefined));
    expect(stack.lookup.counters.tokenRequests).toBe(1);

    clock.advance(DEFAULTS.upstreamTokenDefaultLifetimeMs);
    expect((await search(stack)).code).toBeUndefined();
    expect(stack.lookup.counters.tokenRequests).toBe(2);
  });

  it('reads expires_in sent as a numeric string as its number', async () => {
    const clock = manualClock();
    const stack = await start(clock);
    stack.lookup.knobs.mapTokenAnswer = (answer) => ({ ...answer, expires_in: '1800' });
    expect((await search(stack)).code).toBeUndefined();
    // Well past the 5 min it would get without expires_in, short of 90 % of its 30 min.
    clock.advance(20 * 60_000);
    expect((await search(stack)).code).toBeUndefined();
    expect(stack.lookup.counters.tokenRequests).toBe(1);
    clock.advance(10 * 60_000);
    expect((await search(stack)).code).toBeUndefined();
    expect(stack.lookup.counters.tokenRequests).toBe(2);
  });

  it('takes token_type in any case, or none, for Bearer', async () => {
    const clock = manualClock();
    const stack = await start(clock);
    for (const tokenType of ['bearer', 'BEARER', undefined]) {
      stack.lookup.knobs.mapTokenAnswer = (answer) => ({ ...answer, token_type: tokenType });
      stack.lookup.knobs.revokeTokens();
      expect((await search(stack)).code).toBeUndefined();
    }
  });

  it.each([
    ['zero', 0],
    ['negative', -60],
    ['a word', 'soon'],
  ])('uses the default lifetime for an expires_in that is %s', async (_name, expiresIn) => {
    const clock = manualClock();
    const stack = await start(clock);
    stack.lookup.knobs.mapTokenAnswer = (answer) => ({ ...answer, expires_in: expiresIn });
    const codes = await searchesOverTime(stack, clock, 10, 10_000);
    expect(codes).toEqual(Array(10).fill(undefined));
    expect(stack.lookup.counters.tokenRequests).toBe(1);
  });

  it('keeps a token with a tiny expires_in for UPSTREAM_TOKEN_MIN_LIFETIME_MS: no renewal per search', async () => {
    const clock = manualClock();
    const stack = await start(clock);
    stack.lookup.knobs.mapTokenAnswer = (answer) => ({ ...answer, expires_in: 0.001 });
    const codes = await searchesOverTime(stack, clock, 20, 100);
    expect(codes).toEqual(Array(20).fill(undefined));
    expect(stack.lookup.counters.tokenRequests).toBe(1);
    // Renewed at 90 % of the floor, not before.
    clock.advance(DEFAULTS.upstreamTokenMinLifetimeMs);
    expect((await search(stack)).code).toBeUndefined();
    expect(stack.lookup.counters.tokenRequests).toBe(2);
  });

  it('renews a token with a huge expires_in after UPSTREAM_TOKEN_MAX_LIFETIME_MS', async () => {
    const clock = manualClock();
    const stack = await start(clock);
    stack.lookup.knobs.mapTokenAnswer = (answer) => ({ ...answer, expires_in: 1e12 });
    expect((await search(stack)).code).toBeUndefined();
    clock.advance(DEFAULTS.upstreamTokenMaxLifetimeMs);
    expect((await search(stack)).code).toBeUndefined();
    expect(stack.lookup.counters.tokenRequests).toBe(2);
  });
});
