import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/gateway/config/gateway-config.js';
import { readTrustedDocuments } from '../../../src/gateway/graphql/trusted-documents.js';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { problemsOf } from '../../support/config-problems.js';
import { startStack, type Stack } from '../../support/stack.js';

const MANIFEST = fileURLToPath(new URL('../../generated/persisted-documents.json', import.meta.url));
const dashboardId = (DashboardSearchDocument as unknown as { __meta__: { hash: string } }).__meta__.hash;
const variables = { q: 'Zebra Quantum', jurisdiction: 'GB' };
const expected = {
  data: {
    searchCompanies: {
      totalCount: 1,
      nodes: [{ name: 'Zebra Quantum Fisheries Ltd', companyNumber: '09876543', status: expect.any(String) }],
    },
  },
};

describe('trusted documents only', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { trustedDocuments: readTrustedDocuments(MANIFEST), allowArbitraryOperations: false } });
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.lookup.counters.reset());

  it('runs an operation from the manifest by its documentId', async () => {
    const { status, text } = await stack.post({ documentId: dashboardId, variables });
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual(expected);
  });

  it('runs a trusted document by its documentId in a GET query string', async () => {
    const search = new URLSearchParams({ documentId: dashboardId, variables: JSON.stringify(variables) });
    const { status, text } = await stack.get(`/graphql?${search}`);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual(expected);
  });

  it("accepts Apollo's persistedQuery extension with the bare digest", async () => {
    const { status, text } = await stack.post({
      variables,
      extensions: { persistedQuery: { version: 1, sha256Hash: dashboardId.replace('sha256:', '') } },
    });
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual(expected);
  });

  it.each([
    [
      'a query',
      { query: '{ searchCompanies(q: "holdings", jurisdiction: "GB") { totalCount } }' },
      'Only trusted documents are executed here: send "documentId" with the id of an operation from the manifest instead of "query"',
      'TRUSTED_DOCUMENT_REQUIRED',
    ],
    [
      'an unknown documentId',
      { documentId: `sha256:${'0'.repeat(64)}` },
      '"documentId" does not name a trusted document; send the id of an operation from the manifest',
      'TRUSTED_DOCUMENT_NOT_FOUND',
    ],
    ['neither', { variables }, 'Send "documentId" with the id of a trusted document', 'BAD_REQUEST'],
  ])('refuses %s with 400 and no upstream call', async (_, body, message, code) => {
    const { status, text } = await stack.post(body);
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({ errors: [{ message, extensions: { code, requestId: expect.any(String) } }] });
    expect(stack.lookup.counters.searchRequests + stack.lookup.counters.tokenRequests).toBe(0);
  });
});

describe('trusted documents alongside arbitrary operations', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { trustedDocuments: readTrustedDocuments(MANIFEST), allowArbitraryOperations: true } });
  });
  afterAll(() => stack.close());

  it('runs both', async () => {
    expect(JSON.parse((await stack.post({ documentId: dashboardId, variables })).text)).toEqual(expected);
    expect(JSON.parse((await stack.post({ query: '{ __typename }' })).text)).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses a request with neither, naming both ways', async () => {
    const { status, text } = await stack.post({ variables });
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      errors: [
        {
          message: 'Send "query", or "documentId" with the id of a trusted document',
          extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' },
        },
      ],
    });
  });
});

describe('reading a manifest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trusted-documents-'));
  const idOf = (document: string) => `sha256:${createHash('sha256').update(document).digest('hex')}`;
  const write = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('reads the codegen manifest, every document by id', () => {
    const manifest = readTrustedDocuments(MANIFEST);
    expect(manifest.documents.size).toBe(Object.keys(JSON.parse(readFileSync(MANIFEST, 'utf8'))).length);
    expect(manifest.documents.get(dashboardId)).toContain('query DashboardSearch');
  });

  it('refuses a manifest that is missing, not JSON, tampered with or empty, saying which', () => {
    const tampered = write('tampered.json', JSON.stringify({ [dashboardId]: '{ __typename }' }));
    const cases: [string, string][] = [
      [join(dir, 'missing.json'), `cannot read ${join(dir, 'missing.json')}: ENOENT`],
      [write('broken.json', '{'), `${join(dir, 'broken.json')} is not JSON`],
      [write('array.json', '[]'), `${join(dir, 'array.json')} must hold a JSON object from document id to document`],
      [write('id.json', '{"abc": "{ __typename }"}'), `${join(dir, 'id.json')}: "abc" is not a document id (sha256: and 64 hex digits)`],
      [tampered, `${tampered}: ${dashboardId} is not the SHA-256 of its document`],
      [
        write('number.json', JSON.stringify({ [idOf('{')]: 1 })),
        `${join(dir, 'number.json')}: the document of ${idOf('{')} is not a string`,
      ],
      [
        write('unparsable.json', JSON.stringify({ [idOf('{')]: '{' })),
        `${join(dir, 'unparsable.json')}: the document of ${idOf('{')} does not parse: Syntax Error: Expected Name, found <EOF>.`,
      ],
      [write('empty.json', '{}'), `${join(dir, 'empty.json')} lists no documents`],
    ];
    for (const [path, message] of cases) expect(() => readTrustedDocuments(path)).toThrow(message);
  });

  it('is read at start: TRUSTED_DOCUMENTS turns arbitrary operations off unless ALLOW_ARBITRARY_OPERATIONS=true', () => {
    expect(readConfig({ TRUSTED_DOCUMENTS: MANIFEST })).toMatchObject({ allowArbitraryOperations: false });
    expect(readConfig({ TRUSTED_DOCUMENTS: MANIFEST, ALLOW_ARBITRARY_OPERATIONS: 'true' })).toMatchObject({
      allowArbitraryOperations: true,
    });
    expect(readConfig({})).toMatchObject({ trustedDocuments: undefined, allowArbitraryOperations: true });
    expect(problemsOf({ ALLOW_ARBITRARY_OPERATIONS: 'false' })).toEqual([
      'ALLOW_ARBITRARY_OPERATIONS=false needs TRUSTED_DOCUMENTS, the manifest of the operations to allow',
    ]);
    expect(problemsOf({ TRUSTED_DOCUMENTS: join(dir, 'nope.json') })).toEqual([
      `TRUSTED_DOCUMENTS: cannot read ${join(dir, 'nope.json')}: ENOENT`,
    ]);
  });
});
