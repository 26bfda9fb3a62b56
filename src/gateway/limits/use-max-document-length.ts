import { createGraphQLError, type Plugin } from 'graphql-yoga';

/**
 * Refuses a document longer than `maxLength` characters before it is parsed,
 * so a huge string literal or comment, which counts as one token or none,
 * costs no parsing either.
 */
export function useMaxDocumentLength({ maxLength }: { maxLength: number }): Plugin {
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new RangeError(`maxLength must be a whole number of at least 1, got ${maxLength}`);
  }
  return {
    onParams({ params }) {
      if (typeof params.query === 'string' && params.query.length > maxLength) {
        throw createGraphQLError(`The GraphQL document is ${params.query.length} characters long; at most ${maxLength} are accepted`, {
          extensions: { code: 'DOCUMENT_TOO_LARGE', http: { status: 400 } },
        });
      }
    },
  };
}
