import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { CACHE_ENTRY_BYTES } from '../../upstream/cache-entry.js';

/** The share of CACHE_MAX_BYTES given to parsed documents. */
export const DOCUMENT_CACHE_SHARE = 1 / 8;

/**
 * What a parsed document holds on the heap per character of its text: its
 * nodes, their locations and the lexer's tokens those locations keep (error
 * locations shown to clients need them), the text itself, and what Yoga and
 * our plugins keep per document (its validation result, counts per
 * operation). Documents differ in how much they hold per character: the
 * densest valid shape, a short field name over and over, sets the figure,
 * with a margin, so that the rest are counted above what they hold. Invalid
 * documents are not kept (see DocumentCache): their validation errors, each
 * with its stack, can hold many times the document's own size.
 */
export const DOCUMENT_BYTES_PER_CHARACTER = 200;

function entryBytes(source: string): number {
  return CACHE_ENTRY_BYTES + source.length * DOCUMENT_BYTES_PER_CHARACTER;
}

/**
 * Parsed documents by their text, for Yoga to reuse (its
 * parserAndValidationCache), bounded by the bytes they hold. Yoga's own
 * cache is bounded by count (1,024 documents), whatever each holds, so a few
 * large documents could fill the heap. Validation results are kept by Yoga per document object, so they
 * go with their document; a document that failed validation is forgotten
 * (`forget`), since its errors can hold far more than the document. A
 * document too large for the bound is simply not kept.
 */
export class DocumentCache {
  readonly #documents: LRUCache<string, DocumentNode>;
  /** Each kept document's text, to forget it by the document alone. */
  readonly #sources = new WeakMap<DocumentNode, string>();

  constructor(maxBytes: number) {
    this.#documents = new LRUCache({ maxSize: Math.max(1, maxBytes), sizeCalculation: (_, source) => entryBytes(source) });
  }

  get(source: string): DocumentNode | undefined {
    return this.#documents.get(source);
  }

  set(source: string, document: DocumentNode): void {
    this.#documents.set(source, document);
    this.#sources.set(document, source);
  }

  forget(document: DocumentNode): void {
    const source = this.#sources.get(document);
    if (source !== undefined && this.#documents.peek(source) === document) this.#documents.delete(source);
  }

  /** Bytes counted for the documents kept now. */
  get bytes(): number {
    return this.#documents.calculatedSize;
  }
}

/**
 * Yoga's cache of parse errors, kept empty: a text that does not parse is
 * parsed again when sent again, which costs what a new text costs anyway,
 * and a kept error holds its text and stack, many times the text's size.
 */
export const NO_PARSE_ERROR_CACHE = { get: (): undefined => undefined, set: (): void => {} };
