import type { Plugin } from 'graphql-yoga';
import type { DocumentCache } from './document-cache.js';

export interface DocumentCacheOptions {
  cache: DocumentCache;
}

/**
 * Forgets a document that failed validation from the cache Yoga parses
 * through (its parserAndValidationCache, given `cache`): Yoga would keep its
 * validation errors as long as the document, and they hold far more than it.
 * Sent again, it is parsed and validated again, as any new document is.
 */
export function useDocumentCache({ cache }: DocumentCacheOptions): Plugin {
  return {
    onValidate({ params: { documentAST } }) {
      return ({ result }) => {
        if (result.length > 0) cache.forget(documentAST);
      };
    },
  };
}
