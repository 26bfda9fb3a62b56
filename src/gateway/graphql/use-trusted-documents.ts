import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { BadRequestError, TrustedDocumentNotFoundError, TrustedDocumentRequiredError } from '../../errors/request-errors.js';
import type { TrustedDocuments } from './trusted-documents.js';

/** The request parameter that names a trusted document, as the GraphQL-over-HTTP persisted documents proposal spells it. */
export const DOCUMENT_ID_PARAM = 'documentId';

export interface TrustedDocumentsOptions {
  manifest: TrustedDocuments;
  /** Whether a request may still send a whole `query` instead of a document id. */
  allowArbitraryOperations: boolean;
}

/**
 * Runs documents from the manifest by id: `{"documentId": "sha256:…"}`, or
 * Apollo's `extensions.persistedQuery.sha256Hash` with the bare digest.
 * Unless arbitrary operations are allowed, a request with a `query` is refused.
 */
export function useTrustedDocuments({ manifest, allowArbitraryOperations }: TrustedDocumentsOptions): Plugin {
  const missingId = `Send ${allowArbitraryOperations ? '"query", or ' : ''}"${DOCUMENT_ID_PARAM}" with the id of a trusted document`;
  return usePersistedOperations({
    allowArbitraryOperations,
    extractPersistedOperationId: documentIdOf,
    getPersistedOperation: (id) => manifest.documents.get(id) ?? null,
    customErrors: {
      persistedQueryOnly: () => new TrustedDocumentRequiredError(DOCUMENT_ID_PARAM),
      keyNotFound: () => new BadRequestError(missingId),
      notFound: () => new TrustedDocumentNotFoundError(DOCUMENT_ID_PARAM),
    },
  });
}

/** Yoga keeps `extraParamNames` from a body, but reads only its own parameters from a GET query string. */
function documentIdOf(params: GraphQLParams & { [DOCUMENT_ID_PARAM]?: unknown }, request: Request): string | null {
  const id = params[DOCUMENT_ID_PARAM] ?? (request.method === 'GET' ? new URL(request.url).searchParams.get(DOCUMENT_ID_PARAM) : null);
  if (typeof id === 'string') return id;
  const persisted = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
  return persisted?.version === 1 && typeof persisted.sha256Hash === 'string' ? `sha256:${persisted.sha256Hash}` : null;
}
