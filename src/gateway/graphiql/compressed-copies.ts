import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { GraphiqlFile } from './bundle.js';

/** The content codings GraphiQL's files are kept in besides none, best first. */
export const CONTENT_ENCODINGS = ['br', 'gzip'] as const;
export type ContentEncoding = (typeof CONTENT_ENCODINGS)[number];

/**
 * Brotli one level below its best, with its largest window: the page and its
 * files stay within the 2 MB a first visit may move (test/gateway/graphiql/graphiql.test.ts),
 * for less than half the CPU at install of the top level. Lower levels miss
 * that budget. gzip, for the rare client without Brotli, at zlib's default.
 * docs/performance.md has the measurement and its command.
 */
export const BROTLI_QUALITY = 10;
export const BROTLI_WINDOW_BITS = 24;
export const GZIP_LEVEL = 6;

/** node_modules/.cache, where tools conventionally keep what they can make again: a fresh install starts without it. */
export const DEFAULT_COPIES_DIR = fileURLToPath(new URL('../../../node_modules/.cache/company-search-gateway/graphiql/', import.meta.url));

/** Named by their levels too: copies an install made at other levels are made again, not served. */
export const COPY_EXTENSIONS: Record<ContentEncoding, string> = {
  br: `q${BROTLI_QUALITY}w${BROTLI_WINDOW_BITS}.br`,
  gzip: `${GZIP_LEVEL}.gz`,
};

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** One copy to make: a file in one coding. */
export interface Copy {
  file: GraphiqlFile;
  encoding: ContentEncoding;
}

/**
 * Compressed copies of GraphiQL's files, in memory for serving and on disk
 * between runs, each named after the SHA-256 of the file it copies: a copy
 * found on disk is the copy of that very content.
 */
export class CompressedCopies {
  readonly #dir: string;
  readonly #copies = new Map<string, Buffer>();

  constructor(dir: string = DEFAULT_COPIES_DIR) {
    this.#dir = dir;
  }

  /** The copy of `file` in `encoding`, once it is made or read. */
  get(file: GraphiqlFile, encoding: ContentEncoding): Buffer | undefined {
    return this.#copies.get(this.#name({ file, encoding }));
  }

  /** Reads the copies of `files` already on disk, and answers those still to be made. */
  async load(files: readonly GraphiqlFile[]): Promise<Copy[]> {
    const wanted = files.flatMap((file) => CONTENT_ENCODINGS.map((encoding) => ({ file, encoding })));
    const found = await Promise.all(
      wanted.map(async (copy) => {
        try {
          this.#copies.set(this.#name(copy), await readFile(join(this.#dir, this.#name(copy))));
          return true;
        } catch {
          return false;
        }
      }),
    );
    return wanted.filter((_, index) => !found[index]);
  }

  /**
   * Makes `copies`, `concurrency` at a time (each runs on libuv's thread pool,
   * not the event loop), keeping each in memory as soon as it is made, and on
   * disk where the folder can be written: a read-only install still serves them.
   */
  async make(copies: readonly Copy[], concurrency = 1): Promise<void> {
    const queue = [...copies];
    const worker = async () => {
      for (let copy = queue.shift(); copy !== undefined; copy = queue.shift()) {
        const bytes = await compress(copy);
        this.#copies.set(this.#name(copy), bytes);
        await this.#save(this.#name(copy), bytes);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  }

  /** Deletes the copies on disk of anything but `files`: those earlier versions of GraphiQL left. */
  async prune(files: readonly GraphiqlFile[]): Promise<void> {
    const kept = new Set(files.flatMap((file) => CONTENT_ENCODINGS.map((encoding) => this.#name({ file, encoding }))));
    const present = await readdir(this.#dir).catch(() => []);
    await Promise.all(present.filter((name) => !kept.has(name)).map((name) => rm(join(this.#dir, name), { force: true })));
  }

  #name({ file, encoding }: Copy): string {
    return `${file.hash}.${COPY_EXTENSIONS[encoding]}`;
  }

  async #save(name: string, bytes: Buffer): Promise<void> {
    // Written aside, then renamed: a reader never finds half a copy, whoever else writes the same one.
    const partial = join(this.#dir, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`);
    try {
      await mkdir(this.#dir, { recursive: true });
      await writeFile(partial, bytes);
      await rename(partial, join(this.#dir, name));
    } catch {
      await rm(partial, { force: true }).catch(() => undefined);
    }
  }
}

function compress({ file, encoding }: Copy): Promise<Buffer> {
  if (encoding === 'gzip') return gzipped(file.body, { level: GZIP_LEVEL });
  return brotli(file.body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
      [constants.BROTLI_PARAM_SIZE_HINT]: file.body.length,
      [constants.BROTLI_PARAM_MODE]: file.contentType.startsWith('text/') ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
    },
  });
}
