import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { LRU_ENTRY_BYTES } from '../../upstream/heap-size.js';

/** The share of CACHE_MAX_BYTES given to parsed documents. */
export const DOCUMENT_CACHE_SHARE = 1 / 8;

/**
 * What a parsed document holds on the heap per character of its text: its
 * nodes, their locations and the lexer's tokens those locations keep (error
 * locations shown to clients need them), the text itself, and what Yoga and
 * our plugins keep per document (its validation result, counts per
 * operation). Measured after GC through a running gateway (Node 20.20,
 * 64-bit, 200 distinct documents of each shape):
 *
 *   shape                                         chars    held  per char
 *   full company card, one fragment                 418  33,618        80
 *   five searches with nested lists                 584  48,766        83
 *   700 __typename                                7,714 352,715        46
 *   300 `id` in one selection                       957 157,087       164
 *   500 `id` in one selection                     1,557 253,470       163
 *   a search with a 9,000-character string        9,071  20,853       2.3
 *
 * The densest valid shape, a short field name over and over, sets the
 * figure, with a margin; the rest are counted above what they hold. Invalid
 * documents are not kept (see DocumentCache): their validation errors, each
 * with its stack, held up to 829 KB for a 3 KB document.
 */
export const DOCUMENT_BYTES_PER_CHARACTER = 200;

function entryBytes(source: string): number {
  return LRU_ENTRY_BYTES + source.length * DOCUMENT_BYTES_PER_CHARACTER;
}

/**
 * Parsed documents by their text, for Yoga to reuse (its
 * parserAndValidationCache), bounded by the bytes they hold. Yoga's own
 * cache is bounded by count: 1,024 distinct documents of 700 fields held
 * 350 MiB. Validation results are kept by Yoga per document object, so they
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
 * and a kept error holds its text and stack (98 KB for a 7.7 KB text).
 */
export const NO_PARSE_ERROR_CACHE = { get: (): undefined => undefined, set: (): void => {} };
