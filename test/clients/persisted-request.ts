import type { TypedDocumentNode } from '@graphql-typed-document-node/core';

/** The codegen client preset with `persistedDocuments: true` gives every document its manifest id. */
type PersistedDocument<TData, TVariables> = TypedDocumentNode<TData, TVariables> & { __meta__?: { hash: string } };

/** Runs an operation by its id in the manifest the gateway was given (TRUSTED_DOCUMENTS): the document itself is not sent. */
export async function executePersisted<TData, TVariables>(
  url: string,
  document: PersistedDocument<TData, TVariables>,
  variables: TVariables,
): Promise<{ data?: TData | null; errors?: { message: string; extensions?: { code?: string } }[] }> {
  const documentId = document.__meta__?.hash;
  if (documentId === undefined) throw new Error('The document has no id: generate it with persistedDocuments: true');
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ documentId, variables }),
  });
  return response.json();
}
