import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { allFixtureCompanies } from '../../../src/lookup-service/index.js';
import type { HttpAnswer } from '../../support/http.js';
import { startStack, type Stack } from '../../support/stack.js';

/**
 * A grid of @include and @skip conditions, each `if` a literal or a variable
 * declared every way and sent every way, each request sent SENDS times to a
 * gateway with its response cache and once to one without. Every answer is
 * the one the specification gives, worked out here (expectedOutcome), and
 * every answer of the cached gateway is the uncached one's, byte for byte:
 * an answer kept for one condition and served for another would show.
 */
const SENDS = 3;

/**
 * Where a condition may stand, and the key it decides: on a nested field, on
 * the root field, on an inline fragment, on a fragment spread.
 */
const PLACES: [string, (directive: string) => string, (data: Json) => boolean][] = [
  [
    'a nested field',
    (d) => `searchCompanies(q: "ferncastle", jurisdiction: GB, pageSize: 2) { nodes { name companyNumber ${d} } }`,
    (data) => 'companyNumber' in data.searchCompanies.nodes[0],
  ],
  [
    'the root field',
    (d) => `__typename searchCompanies(q: "ferncastle", jurisdiction: GB, pageSize: 2) ${d} { totalCount }`,
    (data) => 'searchCompanies' in data,
  ],
  [
    'an inline fragment',
    (d) => `searchCompanies(q: "ferncastle", jurisdiction: GB, pageSize: 2) { nodes { name ... ${d} { status } } }`,
    (data) => 'status' in data.searchCompanies.nodes[0],
  ],
  [
    'a fragment spread',
    (d) => `searchCompanies(q: "ferncastle", jurisdiction: GB, pageSize: 2) { nodes { ...Numbered ${d} name } }`,
    (data) => 'companyNumber' in data.searchCompanies.nodes[0],
  ],
];
/** The fragment a spread names, for the documents that spread it. */
const withFragment = (selections: string) =>
  selections.includes('...Numbered') ? `${selections} fragment Numbered on Company { companyNumber }` : selections;
/** How a condition's variable is declared: required or not, with a default or not. */
const DECLARATIONS = ['Boolean!', 'Boolean', 'Boolean = true', 'Boolean = false', 'Boolean! = true', 'Boolean! = false'];
/** What is sent for it; undefined: left out. */
const SENT = [true, false, null, undefined];

// biome-ignore lint/suspicious/noExplicitAny: answers are read at any depth.
type Json = Record<string, any>;

/** What the specification answers: the key there or not, or an error (with its status) and its message. */
type Outcome = { included: boolean } | { status: number; message: string };

/**
 * The `if` a directive ends up with, by the specification: a literal as it
 * is; a variable as sent, or its default when left out. A required variable
 * sent null or left out without a default fails its coercion (400); a nullable
 * one without a default may not stand where Boolean! is asked (validation,
 * 400); a nullable one sent null reaches the directive null, which its `if`
 * refuses (an execution error).
 */
function expectedOutcome(directive: string, declaration: string | undefined, sent: boolean | null | undefined, literal?: boolean): Outcome {
  const included = (value: boolean) => ({ included: directive === 'include' ? value : !value });
  if (declaration === undefined) return included(literal!);
  const required = declaration.startsWith('Boolean!');
  const defaultValue = declaration.endsWith('= true') ? true : declaration.endsWith('= false') ? false : undefined;
  if (!required && defaultValue === undefined) {
    return { status: 400, message: 'Variable "$c" of type "Boolean" used in position expecting type "Boolean!".' };
  }
  if (sent === undefined) {
    if (defaultValue !== undefined) return included(defaultValue);
    return { status: 400, message: 'Variable "$c" of required type "Boolean!" was not provided.' };
  }
  if (sent === null) {
    if (required) return { status: 400, message: 'Variable "$c" of non-null type "Boolean!" must not be null.' };
    return { status: 200, message: 'Argument "if" of non-null type "Boolean!" must not be null.' };
  }
  return included(sent);
}

const GRID = PLACES.flatMap(([place, selection, holdsKey]) =>
  ['include', 'skip'].flatMap((directive) => [
    ...[true, false].map((literal) => ({
      name: `@${directive}(if: ${literal}) on ${place}`,
      query: withFragment(`query { ${selection(`@${directive}(if: ${literal})`)} }`),
      variables: {},
      expected: expectedOutcome(directive, undefined, undefined, literal),
      holdsKey,
    })),
    ...DECLARATIONS.flatMap((declaration) =>
      SENT.map((value) => ({
        name: `@${directive}(if: $c) on ${place}, $c: ${declaration}, sent ${value === undefined ? 'nothing' : String(value)}`,
        query: withFragment(`query($c: ${declaration}) { ${selection(`@${directive}(if: $c)`)} }`),
        variables: value === undefined ? {} : { c: value },
        expected: expectedOutcome(directive, declaration, value),
        holdsKey,
      })),
    ),
  ]),
);

let cached: Stack;
let uncached: Stack;
beforeAll(async () => {
  // Date, which answers show (fetchedAt), stands still: both gateways answer at the same instant.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 1) });
  const gateway = { rateLimitPerMinute: 0, cacheTtlMs: 60_000 };
  [cached, uncached] = await Promise.all([
    startStack({ lookup: { companies: allFixtureCompanies }, gateway }),
    startStack({ lookup: { companies: allFixtureCompanies }, gateway: { ...gateway, responseCache: false } }),
  ]);
});
afterAll(async () => {
  await Promise.all([cached?.close(), uncached?.close()]);
  vi.useRealTimers();
});

const post = (stack: Stack, query: string, variables: object) => stack.post({ query, variables }, { 'x-request-id': 'grid' });
const comparable = ({ status, headers, text }: HttpAnswer) => ({ status, contentType: headers['content-type'], text });

describe('@include and @skip, on literals and on variables of every declaration sent every way', () => {
  it.each(GRID.map(({ name, ...rest }) => [name, rest] as const))(
    '%s: answered as the specification says, every time, cached or not',
    async (_, { query, variables, expected, holdsKey }) => {
      const answer = await post(uncached, query, variables);
      const { data, errors } = JSON.parse(answer.text) as { data?: Json | null; errors?: { message: string }[] };
      if ('included' in expected) {
        expect({ status: answer.status, errors }).toEqual({ status: 200, errors: undefined });
        expect(holdsKey(data!)).toBe(expected.included);
      } else {
        expect({ status: answer.status, message: errors?.[0]?.message }).toEqual(expected);
      }
      for (let sent = 0; sent < SENDS; sent++) expect(comparable(await post(cached, query, variables))).toEqual(comparable(answer));
    },
  );

  it('covers every outcome: the key there and not, and each error', () => {
    const outcomes = new Set(GRID.map(({ expected }) => JSON.stringify(expected)));
    expect(outcomes.size).toBe(6);
  });

  it("@include(if: $s), $s: Boolean = true, sent null: graphql-js's error every time, cached or not", async () => {
    const query =
      'query Q($s: Boolean = true) { searchCompanies(q: "ferncastle", jurisdiction: "GB", first: 2) { nodes { name companyNumber @include(if: $s) } } }';
    for (const stack of [cached, cached, cached, uncached]) {
      const answer = JSON.parse((await post(stack, query, { s: null })).text);
      expect(answer.errors.map((error: { message: string }) => error.message)).toContain(
        'Argument "if" of non-null type "Boolean!" must not be null.',
      );
      expect(answer.data).toBeNull();
    }
  });
});
