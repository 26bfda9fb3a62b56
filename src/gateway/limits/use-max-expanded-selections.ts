import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { OperationTooComplexError } from '../../errors/request-errors.js';
import { expandedSelections } from './expanded-selections.js';

export interface MaxExpandedSelectionsOptions {
  maxSelections: number;
}

/**
 * Refuses, before any validation rule runs, a document with more than
 * `maxSelections` selections once its fragments are expanded where they are
 * spread (see expandedSelections). A document of a thousand tokens can
 * otherwise stand for billions of selections (each fragment spreading the
 * next twice), and every walk that follows fragments, in validation rules,
 * plugins or execution, would pay for all of them. The count is linear in
 * the document and kept per parsed document, which Yoga's parse cache reuses.
 */
export function useMaxExpandedSelections({ maxSelections }: MaxExpandedSelectionsOptions): Plugin {
  if (!Number.isInteger(maxSelections) || maxSelections < 1) {
    throw new RangeError(`maxSelections must be a whole number of at least 1, got ${maxSelections}`);
  }
  const counts = new WeakMap<DocumentNode, number>();
  return {
    onValidate({ params: { documentAST }, setResult }) {
      let count = counts.get(documentAST);
      if (count === undefined) {
        count = expandedSelections(documentAST);
        counts.set(documentAST, count);
      }
      if (count <= maxSelections) return;
      // A result set here stands for validation's: the rules, ours and graphql-js's, never see the document.
      setResult([new OperationTooComplexError(count, maxSelections)]);
    },
  };
}
