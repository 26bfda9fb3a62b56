import type { Plugin } from 'graphql-yoga';
import { DocumentTooLargeError } from '../../errors/request-errors.js';

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
        throw new DocumentTooLargeError(params.query.length, maxLength);
      }
    },
  };
}
