import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrustedDocuments } from '../../src/gateway/graphql/trusted-documents.js';
import { DashboardSearchDocument } from '../generated/graphql.js';
import { startStack, type Stack } from '../support/stack.js';
import { executePersisted } from './persisted-request.js';

const MANIFEST = fileURLToPath(new URL('../generated/persisted-documents.json', import.meta.url));

describe("docs/clients.md's persisted-document request", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { trustedDocuments: readTrustedDocuments(MANIFEST), allowArbitraryOperations: false } });
  });
  afterAll(() => stack.close());

  it('runs a codegen document by its manifest id on a gateway that runs trusted documents only', async () => {
    const result = await executePersisted(stack.gateway.graphqlUrl, DashboardSearchDocument, { q: 'Zebra Quantum', jurisdiction: 'GB' });
    expect(result.errors).toBeUndefined();
    expect(result.data!.searchCompanies.nodes.map((company) => company.name)).toEqual(['Zebra Quantum Fisheries Ltd']);
  });

  it('refuses a document without an id before sending it', async () => {
    const { __meta__: _, ...withoutId } = DashboardSearchDocument as typeof DashboardSearchDocument & { __meta__: unknown };
    await expect(executePersisted(stack.gateway.graphqlUrl, withoutId, { q: 'x', jurisdiction: 'GB' })).rejects.toThrow(
      'The document has no id: generate it with persistedDocuments: true',
    );
  });
});
