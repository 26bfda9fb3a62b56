import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SearchCompaniesDocument } from '../generated/graphql.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let cursorOfOtherSearch: string;

beforeAll(async () => {
  stack = await startStack({ gateway: { searchMaxQueryLength: 30 } });
  const other = await stack.execute(SearchCompaniesDocument, { q: 'holdings', jurisdiction: 'GB', pageSize: 2 });
  cursorOfOtherSearch = other.body.data!.searchCompanies.pageInfo.endCursor!;
});
afterAll(() => stack.close());
beforeEach(() => stack.lookup.counters.reset());

type Variables = Parameters<Stack['execute']>[1] & Record<string, unknown>;

async function expectRejected(variables: Variables, argument: string, message: string | RegExp) {
  const { status, body } = await stack.execute(SearchCompaniesDocument, variables as never);
  expect(status).toBe(200);
  expect(body.data).toBeNull();
  expect(body.errors).toHaveLength(1);
  expect(body.errors![0]).toMatchObject({
    path: ['searchCompanies'],
    extensions: { requestId: expect.any(String), code: 'BAD_USER_INPUT', argument },
  });
  expect(body.errors![0]!.message).toMatch(message);
  expect(stack.lookup.counters.searchRequests).toBe(0);
  expect(stack.lookup.counters.tokenRequests).toBe(0);
}

describe('bad input gets a clear error and no upstream call', () => {
  it('refuses an empty q', () => expectRejected({ q: '', jurisdiction: 'GB' }, 'q', 'q: must not be empty or blank'));

  it('refuses a blank q', () => expectRejected({ q: ' \t\n ', jurisdiction: 'GB' }, 'q', 'q: must not be empty or blank'));

  it('refuses a q longer than the configured limit, counted after trimming', async () => {
    await expectRejected({ q: 'a'.repeat(31), jurisdiction: 'GB' }, 'q', 'q: must be at most 30 characters long, got 31');
    const { body } = await stack.execute(SearchCompaniesDocument, { q: ` ${'a'.repeat(30)} `, jurisdiction: 'GB' });
    expect(body.errors).toBeUndefined();
  });

  it('refuses a jurisdiction that is not an ISO 3166-1 alpha-2 code', async () => {
    await expectRejected({ q: 'acme', jurisdiction: 'JJ' }, 'jurisdiction', 'jurisdiction: "JJ" is not an ISO 3166-1 alpha-2 country code');
    await expectRejected({ q: 'acme', jurisdiction: 'GBR' }, 'jurisdiction', 'jurisdiction: "GBR" is not an ISO 3166-1 alpha-2');
    await expectRejected({ q: 'acme', jurisdiction: '' }, 'jurisdiction', 'jurisdiction: "" is not an ISO 3166-1 alpha-2');
  });

  it.each([0, 51, -1])('refuses pageSize %i', (pageSize) =>
    expectRejected({ q: 'acme', jurisdiction: 'GB', pageSize }, 'pageSize', 'pageSize: must be from 1 to 50'),
  );

  it.each([0, 51])('refuses first %i', (first) =>
    expectRejected({ q: 'acme', jurisdiction: 'GB', first }, 'first', 'first: must be from 1 to 50'),
  );

  it('refuses first and pageSize given with different values', () =>
    expectRejected({ q: 'acme', jurisdiction: 'GB', first: 10, pageSize: 20 }, 'first', 'both were given and differ (10 and 20)'));

  it.each([0, -1, 51])('refuses last %i', (last) =>
    expectRejected({ q: 'acme', jurisdiction: 'GB', last }, 'last', 'last: must be from 1 to 50'),
  );

  it('refuses last with first or pageSize, which page the other way', async () => {
    await expectRejected(
      { q: 'acme', jurisdiction: 'GB', first: 5, last: 5 },
      'last',
      'last: pages backward and first forward; give one of them: first (or pageSize) with after, or last with before',
    );
    await expectRejected({ q: 'acme', jurisdiction: 'GB', pageSize: 5, last: 5 }, 'last', 'last: pages backward and pageSize forward');
  });

  it('refuses a malformed before, or one of another search', async () => {
    await expectRejected(
      { q: 'acme', jurisdiction: 'GB', last: 5, before: 'x' },
      'before',
      'before: is not a cursor issued by this gateway',
    );
    await expectRejected(
      { q: 'acme', jurisdiction: 'GB', last: 5, before: cursorOfOtherSearch },
      'before',
      'before: is a cursor of a different search',
    );
  });

  it('refuses a malformed cursor', async () => {
    await expectRejected(
      { q: 'acme', jurisdiction: 'GB', after: 'not-a-cursor' },
      'after',
      'after: is not a cursor issued by this gateway',
    );
    await expectRejected(
      { q: 'acme', jurisdiction: 'GB', after: Buffer.from('x:1:2').toString('base64url') },
      'after',
      'is not a cursor issued by this gateway',
    );
  });

  it('refuses a cursor of another search', () =>
    expectRejected({ q: 'acme', jurisdiction: 'GB', after: cursorOfOtherSearch }, 'after', 'after: is a cursor of a different search'));

  it('refuses a jurisdiction of the wrong type before execution', async () => {
    const { status, body } = await stack.execute(SearchCompaniesDocument, { q: 'acme', jurisdiction: 42 as never });
    expect(status).toBe(400);
    expect(body.errors![0]!.message).toContain('CountryCode must be a string');
    expect(body.errors![0]!.extensions).toEqual({ requestId: expect.any(String), code: 'BAD_USER_INPUT', variable: 'jurisdiction' });
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it.each([
    ['of the wrong type', { q: 7, jurisdiction: 'GB' }, 'Variable "$q" got invalid value 7; String cannot represent a non string value: 7'],
    ['left out', { jurisdiction: 'GB' }, 'Variable "$q" of required type "String!" was not provided.'],
    ['null where it must not be', { q: null, jurisdiction: 'GB' }, 'Variable "$q" of non-null type "String!" must not be null.'],
  ])('refuses a variable %s before execution with 400 and BAD_USER_INPUT, naming the variable', async (_, variables, message) => {
    const { status, body } = await stack.execute(SearchCompaniesDocument, variables as never);
    expect(status).toBe(400);
    expect(body).toEqual({
      errors: [
        {
          message,
          locations: [{ line: 1, column: 23 }],
          extensions: { requestId: expect.any(String), code: 'BAD_USER_INPUT', variable: 'q' },
        },
      ],
    });
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it('refuses an empty cursor', () =>
    expectRejected({ q: 'acme', jurisdiction: 'GB', after: '' }, 'after', 'after: is not a cursor issued by this gateway'));

  it('treats an explicit null pageSize as not given', async () => {
    const { body } = await stack.execute(SearchCompaniesDocument, { q: 'holdings', jurisdiction: 'GB', pageSize: null, first: 5 });
    expect(body.errors).toBeUndefined();
    expect(body.data!.searchCompanies.edges).toHaveLength(5);
  });

  it('accepts a bare GB as a jurisdiction literal', async () => {
    const response = await stack.post({ query: '{ searchCompanies(q: "Zebra Quantum", jurisdiction: gb) { totalCount } }' });
    expect(JSON.parse(response.text)).toEqual({ data: { searchCompanies: { totalCount: 1 } } });
  });

  it('refuses a company number or a node ID longer than the query limit', async () => {
    const longNumber = 'A'.repeat(31);
    const company = JSON.parse(
      (await stack.post({ query: `{ company(jurisdiction: "GB", companyNumber: "${longNumber}") { name } }` })).text,
    );
    expect(company.errors).toMatchObject([
      {
        message: 'companyNumber: must be at most 30 characters long, got 31',
        extensions: { requestId: expect.any(String), code: 'BAD_USER_INPUT', argument: 'companyNumber' },
      },
    ]);
    const node = JSON.parse((await stack.post({ query: `{ node(id: "${encodeGlobalID('Company', `GB:${longNumber}`)}") { id } }` })).text);
    expect(node.errors).toMatchObject([
      {
        message: 'id: must be at most 30 characters long, got 31',
        extensions: { requestId: expect.any(String), code: 'BAD_USER_INPUT', argument: 'id' },
      },
    ]);
    expect(stack.lookup.counters.searchRequests).toBe(0);
  });

  it('keeps serving after bad input', async () => {
    await expectRejected({ q: '', jurisdiction: 'GB' }, 'q', 'must not be empty');
    const { body } = await stack.execute(SearchCompaniesDocument, { q: 'Zebra Quantum', jurisdiction: 'GB' });
    expect(body.data!.searchCompanies.totalCount).toBe(1);
  });
});
