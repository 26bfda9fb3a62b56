import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
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
  const refuse = (message: string, code: string) => ({ message, extensions: { code, http: { status: 400 } } });
  return usePersistedOperations({
    allowArbitraryOperations,
    extractPersistedOperationId: documentIdOf,
    getPersistedOperation: (id) => manifest.documents.get(id) ?? null,
    customErrors: {
      persistedQueryOnly: refuse(
        `Only trusted documents are executed here: send "${DOCUMENT_ID_PARAM}" with the id of an operation from the manifest instead of "query"`,
        'TRUSTED_DOCUMENT_REQUIRED',
      ),
      keyNotFound: refuse(
        `Send ${allowArbitraryOperations ? '"query", or ' : ''}"${DOCUMENT_ID_PARAM}" with the id of a trusted document`,
        'BAD_REQUEST',
      ),
      notFound: refuse(`"${DOCUMENT_ID_PARAM}" does not name a trusted document`, 'TRUSTED_DOCUMENT_NOT_FOUND'),
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
