import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { GraphiQLOptions } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import { type GraphiqlBundle, type GraphiqlFile, filesOf, installedBundle } from './bundle.js';
import { CompressedCopies, CONTENT_ENCODINGS, type ContentEncoding } from './compressed-copies.js';
import { preferredEncoding } from './content-coding.js';
import { ifNoneMatchNames } from './etag.js';
import { renderPage } from './page.js';

/** The bundle's files never change under their URL. */
export const FILE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** The page names the files of the running version, so the browser asks again each time; its ETag makes that a 304. */
export const PAGE_CACHE_CONTROL = 'no-cache';

export interface GraphiqlResponderOptions {
  page: GraphiQLOptions;
  logger: Logger;
  /** Default: @graphql-yoga/render-graphiql's. */
  bundle?: () => Promise<GraphiqlBundle>;
  /** Default: kept in node_modules/.cache. */
  copies?: CompressedCopies;
}

export interface GraphiqlResponder {
  /** Answers GraphiQL's page. */
  page(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Answers a GET or HEAD of one of GraphiQL's files; false, with nothing sent, when there is no such file. */
  file(request: IncomingMessage, response: ServerResponse): Promise<boolean>;
  /** Settles once every file has its compressed copies, read from disk or made in the background. */
  readonly compressed: Promise<void>;
}

/** What one URL answers: its bytes, their compressed copies where made, and the headers every answer of it carries. */
interface Representation {
  contentType: string;
  cacheControl: string;
  vary: string;
  body: Buffer;
  /** The ETag's opaque part, before the coding is added. */
  tag: string;
  copy(encoding: ContentEncoding): Buffer | undefined;
}

interface Prepared {
  page: Representation;
  files: Map<string, Representation>;
}

/**
 * GraphiQL without a CDN and without moving megabytes on every visit: a small page
 * and the bundle's files, each compressed once (Brotli or gzip, as the
 * browser accepts), cached by the browser for ever under a content-hashed
 * URL, the page revalidated with its ETag. The bundle is loaded on the first
 * request for GraphiQL, not at start: its megabytes of JavaScript strings stay in
 * the heap for good once imported, and a gateway nobody opens GraphiQL on
 * should not carry them.
 */
export function createGraphiqlResponder(options: GraphiqlResponderOptions): GraphiqlResponder {
  const { logger } = options;
  const copies = options.copies ?? new CompressedCopies();
  let prepared: Promise<Prepared> | undefined;
  let compressed!: () => void;
  const allCompressed = new Promise<void>((resolve) => (compressed = resolve));

  const prepare = () => {
    prepared ??= (async () => {
      const bundle = await (options.bundle ?? installedBundle)();
      const files = filesOf(bundle);
      const missing = await copies.load(files);
      if (missing.length === 0) compressed();
      else {
        logger.info({ copies: missing.length }, 'Compressing GraphiQL in the background (npm run build does it ahead of time)');
        const startedAt = performance.now();
        copies.make(missing).then(
          () => {
            logger.info({ durationMs: Math.round(performance.now() - startedAt) }, 'GraphiQL compressed');
            compressed();
          },
          (error: unknown) => logger.error({ err: error }, 'Compressing GraphiQL failed; it is served uncompressed'),
        );
      }
      return {
        page: pageRepresentation(renderPage(bundle, options.page)),
        files: new Map(files.map((file) => [file.path, fileRepresentation(file, copies)])),
      };
    })();
    return prepared;
  };

  return {
    async page(request, response) {
      answer(request, response, (await prepare()).page);
    },
    async file(request, response) {
      const path = (request.url ?? '').split('?', 1)[0]!;
      const representation = (await prepare()).files.get(path);
      if (representation === undefined) return false;
      answer(request, response, representation);
      return true;
    },
    compressed: allCompressed,
  };
}

function fileRepresentation(file: GraphiqlFile, copies: CompressedCopies): Representation {
  return {
    contentType: file.contentType,
    cacheControl: FILE_CACHE_CONTROL,
    vary: 'Accept-Encoding',
    body: file.body,
    tag: file.hash.slice(0, 32),
    copy: (encoding) => copies.get(file, encoding),
  };
}

function pageRepresentation(html: string): Representation {
  const body = Buffer.from(html);
  // A few hundred bytes: compressed here, at once.
  const pageCopies: Record<ContentEncoding, Buffer> = { br: brotliCompressSync(body), gzip: gzipSync(body) };
  return {
    contentType: 'text/html; charset=utf-8',
    cacheControl: PAGE_CACHE_CONTROL,
    // /graphql answers browsers with this page and GraphQL clients with JSON.
    vary: 'Accept, Accept-Encoding',
    body,
    tag: createHash('sha256').update(body).digest('hex').slice(0, 32),
    copy: (encoding) => pageCopies[encoding],
  };
}

/** The representation in the coding the client prefers, or a 304 where its copy is current; HEAD gets the headers alone. */
function answer(request: IncomingMessage, response: ServerResponse, representation: Representation): void {
  const available = CONTENT_ENCODINGS.filter((encoding) => representation.copy(encoding) !== undefined);
  const encoding = preferredEncoding(request.headers['accept-encoding'], available);
  // One ETag per coding: each is a representation of its own (RFC 9110, 8.8.3).
  const etag = `"${representation.tag}${encoding === undefined ? '' : `-${encoding}`}"`;
  const headers = { 'cache-control': representation.cacheControl, vary: representation.vary, etag };
  if (ifNoneMatchNames(request.headers['if-none-match'], etag)) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  const body = encoding === undefined ? representation.body : representation.copy(encoding)!;
  response.writeHead(200, {
    ...headers,
    'content-type': representation.contentType,
    'content-length': body.length,
    ...(encoding === undefined ? {} : { 'content-encoding': encoding }),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}
