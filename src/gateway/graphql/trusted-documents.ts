import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'graphql';
import { FileRefusedError, readRegularFile } from '../../shared/regular-file.js';

/** The operations the trusted-documents manifests allow, by document id. */
export interface TrustedDocuments {
  /** The manifest files read, in order. */
  manifests: string[];
  documents: ReadonlyMap<string, string>;
}

/** Far above any app's manifest (the client preset writes a few KiB per operation); a larger file is refused unread. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** `sha256:` and the hex SHA-256 of the document, as the client preset writes ids. */
const DOCUMENT_ID = /^sha256:([0-9a-f]{64})$/;

/**
 * Reads every manifest `setting` names: a comma-separated list of manifest
 * files or folders, a folder standing for the `*.json` files directly in it
 * (every app ships its own manifest). The documents of all of them are
 * allowed; an id two manifests share must name the same document in both.
 */
export function readTrustedDocuments(setting: string): TrustedDocuments {
  const manifests = manifestEntries(setting).flatMap(manifestFiles);
  if (manifests.length === 0) throw new Error('names no manifest; give the path of a manifest file or of a folder of them');
  const documents = new Map<string, string>();
  const sources = new Map<string, string>();
  for (const path of manifests) {
    for (const [id, document] of readManifest(path)) {
      const known = documents.get(id);
      if (known !== undefined && known !== document) {
        throw new Error(
          `${id} names one document in ${sources.get(id)} and another in ${path}; rebuild the manifests from their apps' operations`,
        );
      }
      checkDocument(path, id, document);
      documents.set(id, document);
      sources.set(id, path);
    }
  }
  return { manifests, documents };
}

/** The files and folders the setting names. */
export function manifestEntries(setting: string): string[] {
  return setting
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * A manifest file as it is, or the `*.json` files of a folder in name order. A
 * file may be a symbolic link, as each file of a mounted Kubernetes ConfigMap
 * is (`app.json -> ..data/app.json`).
 */
function manifestFiles(path: string): string[] {
  let folder: boolean;
  try {
    folder = statSync(path).isDirectory();
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (!folder) return [path];
  const files = readdirSync(path)
    .filter((name) => name.endsWith('.json') && !isFolder(join(path, name)))
    .map((name) => join(path, name))
    .sort();
  if (files.length === 0) throw new Error(`the folder ${path} holds no *.json manifest`);
  return files;
}

/**
 * One manifest in the format of GraphQL Code Generator's client preset
 * (`persistedDocuments`): a JSON object from each document's id
 * (`sha256:<hex digest>`) to the document.
 */
function readManifest(path: string): [string, string][] {
  let text: string;
  try {
    text = readRegularFile(path, MAX_MANIFEST_BYTES);
  } catch (error) {
    if (error instanceof FileRefusedError) throw new Error(`${path} ${error.message}`);
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
  const entries = Object.entries(manifest);
  if (entries.length === 0) throw new Error(`${path} lists no documents`);
  for (const [id, document] of entries) {
    if (!DOCUMENT_ID.test(id)) throw new Error(`${path}: ${JSON.stringify(id)} is not a document id (sha256: and 64 hex digits)`);
    if (typeof document !== 'string') throw new Error(`${path}: the document of ${id} is not a string`);
  }
  return entries as [string, string][];
}

/** A folder within is not read; anything else named `*.json` is, so that what cannot be read (a link to nothing, a pipe) says so. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Each id must be the hash of its document and each document must parse, so a tampered or truncated manifest stops the gateway at start. */
function checkDocument(path: string, id: string, document: string): void {
  if (`sha256:${createHash('sha256').update(document).digest('hex')}` !== id) {
    throw new Error(`${path}: ${id} is not the SHA-256 of its document`);
  }
  try {
    parse(document);
  } catch (error) {
    throw new Error(`${path}: the document of ${id} does not parse: ${(error as Error).message}`);
  }
}
