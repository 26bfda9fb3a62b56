import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';

/** The operations a trusted-documents manifest allows, by document id. */
export interface TrustedDocuments {
  path: string;
  documents: ReadonlyMap<string, string>;
}

/** `sha256:` and the hex SHA-256 of the document, as the client preset writes ids. */
const DOCUMENT_ID = /^sha256:([0-9a-f]{64})$/;

/**
 * Reads a manifest in the format of GraphQL Code Generator's client preset
 * (`persistedDocuments`): a JSON object from each document's id
 * (`sha256:<hex digest>`) to the document. Each id must be the hash of its document and each document
 * must parse, so a tampered or truncated manifest stops the gateway at start.
 */
export function readTrustedDocuments(path: string): TrustedDocuments {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON`);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new Error(`${path} must hold a JSON object from document id to document`);
  }
  const documents = new Map<string, string>();
  for (const [id, document] of Object.entries(manifest)) {
    const digest = DOCUMENT_ID.exec(id)?.[1];
    if (digest === undefined) throw new Error(`${path}: ${JSON.stringify(id)} is not a document id (sha256: and 64 hex digits)`);
    if (typeof document !== 'string') throw new Error(`${path}: the document of ${id} is not a string`);
    if (createHash('sha256').update(document).digest('hex') !== digest)
      throw new Error(`${path}: ${id} is not the SHA-256 of its document`);
    try {
      parse(document);
    } catch (error) {
      throw new Error(`${path}: the document of ${id} does not parse: ${(error as Error).message}`);
    }
    documents.set(id, document);
  }
  if (documents.size === 0) throw new Error(`${path} lists no documents`);
  return { path, documents };
}
