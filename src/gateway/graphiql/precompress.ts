import { availableParallelism } from 'node:os';
import { filesOf, installedBundle } from './bundle.js';
import { CompressedCopies, CONTENT_ENCODINGS, DEFAULT_COPIES_DIR } from './compressed-copies.js';

/**
 * Makes the compressed copies of GraphiQL's files that the folder lacks, on
 * every core, and deletes those of other versions. With the copies there, it
 * only reads them. Says what it is about to make through `progress`, so that
 * an install does not sit silent, and answers a line saying what it did.
 */
export async function precompressGraphiql(dir: string = DEFAULT_COPIES_DIR, progress: (line: string) => void = () => {}): Promise<string> {
  const files = filesOf(await installedBundle());
  const copies = new CompressedCopies(dir);
  const missing = await copies.load(files);
  if (missing.length > 0) progress(`GraphiQL: compressing ${files.length} files (${CONTENT_ENCODINGS.join(', ')}) for serving…`);
  const startedAt = performance.now();
  await copies.make(missing, availableParallelism());
  await copies.prune(files);
  const sizes = CONTENT_ENCODINGS.map((encoding) => {
    const bytes = files.reduce((sum, file) => sum + (copies.get(file, encoding)?.length ?? 0), 0);
    return `${encoding} ${megabytes(bytes)}`;
  });
  const original = megabytes(files.reduce((sum, file) => sum + file.body.length, 0));
  const made =
    missing.length === 0
      ? 'all copies already made'
      : `${missing.length} copies made in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`;
  return `GraphiQL: ${files.length} files, ${original}; ${sizes.join(', ')}; ${made} (${dir})`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(2)} MB`;
}
