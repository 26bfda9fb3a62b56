import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrustedDocuments } from '../../src/gateway/graphql/trusted-documents.js';
import { DashboardSearchDocument } from '../generated/graphql.js';
import { startStack, type Stack } from '../support/stack.js';
import { revalidatingGet } from './revalidating-get.js';

const MANIFEST = fileURLToPath(new URL('../generated/persisted-documents.json', import.meta.url));
const documentId = (DashboardSearchDocument as typeof DashboardSearchDocument & { __meta__: { hash: string } }).__meta__.hash;

describe("docs/clients.md's revalidating GET", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      gateway: { trustedDocuments: readTrustedDocuments(MANIFEST), allowArbitraryOperations: false, logLevel: 'info' },
    });
  });
  afterAll(() => stack.close());

  it('gets a trusted document by GET, then 304 for the copy it kept, which it reuses', async () => {
    const kept = new Map();
    const variables = { q: 'Zebra Quantum', jurisdiction: 'GB' };
    const first = await revalidatingGet(stack.gateway.graphqlUrl, documentId, variables, kept);
    expect(first).toMatchObject({ status: 200, body: { data: { searchCompanies: { nodes: [{ name: 'Zebra Quantum Fisheries Ltd' }] } } } });
    const again = await revalidatingGet(stack.gateway.graphqlUrl, documentId, variables, kept);
    expect(again).toEqual({ status: 304, body: first.body });
    // A search that fails validation keeps nothing.
    const refused = await revalidatingGet(stack.gateway.graphqlUrl, documentId, { q: 'x', jurisdiction: 'UK' }, kept);
    expect(refused.status).toBe(200);
    expect(kept.size).toBe(1);
  });
});
