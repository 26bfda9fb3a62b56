import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { LRUCache } from 'lru-cache';
import { etagOf } from '../src/gateway/response-cache/http-caching.js';
import { ResponseCache } from '../src/gateway/response-cache/response-cache.js';
import { dataTags } from '../src/upstream/cache-tags.js';
import { defaultDataSet, type CompanyResult } from '../src/lookup-service/index.js';
import { UPSTREAM_MAX_PAGE_SIZE } from '../src/upstream/search-call.js';
import { readSearchResponse } from '../src/upstream/search-response.js';
import { NO_REPEATS, windowEntryBytes, windowKey, type SearchWindow } from '../src/upstream/window-size.js';
import { systemClock, wallTime } from '../src/upstream/resilience/clock.js';

/**
 * Measures what the caches' entries really hold (search windows of several
 * shapes, serialized answers of several sizes) after a full GC, and prints it
 * next to what the caches count for them. Each shape runs in a child process
 * of its own under --expose-gc. Rerun after a Node upgrade or a change to what
 * an entry holds, and put its output, with the date, in docs/behaviour.md
 * (*What the caches count*).
 *
 *   npx tsx scripts/calibrate-cache-sizes.ts
 */

interface WindowShape {
  name: string;
  count: number;
  /** The upstream body of window `i`: distinct strings per window where the shape says so. */
  body: (i: number) => string;
}

const companies = defaultDataSet();
const withPreviousNames = companies.filter((company) => company.previousNames.length > 0 && company.addressStructured !== null);
/** Windows of 50 distinct companies the data set has: the same company in two windows shares its short strings, which JSON.parse interns. */
const DISTINCT_FULL_WINDOWS = Math.floor(companies.length / 50);

const page = (results: unknown[]) => JSON.stringify({ results, total: results.length });
const dataSetPage = (source: readonly CompanyResult[], i: number, size: number) =>
  page(Array.from({ length: size }, (_, j) => source[(i * size + j) % source.length]));

const WINDOW_SHAPES: WindowShape[] = [
  { name: 'no results', count: 200_000, body: () => page([]) },
  { name: '1 result', count: 50_000, body: (i) => dataSetPage(companies, i, 1) },
  { name: '50 results, distinct companies', count: DISTINCT_FULL_WINDOWS, body: (i) => dataSetPage(companies, i, 50) },
  { name: '50 results with previous names', count: 2_000, body: (i) => dataSetPage(withPreviousNames, i, 50) },
  {
    name: '50 minimal results, distinct short strings',
    count: 5_000,
    body: (i) => page(Array.from({ length: 50 }, (_, j) => ({ name: `n${i}.${j}`, companyNumber: `${i * 50 + j}` }))),
  },
  {
    name: '50 results, two-byte strings',
    count: 2_000,
    body: (i) =>
      page(
        Array.from({ length: 50 }, (_, j) => {
          const company = withPreviousNames[(i * 50 + j) % withPreviousNames.length]!;
          return { ...company, name: `Łódź ${company.name} Żółw ${i}`, address: `${company.address ?? ''} — Kraków` };
        }),
      ),
  },
  {
    name: '50 results, malformed fields',
    count: 2_000,
    body: (i) =>
      page(
        Array.from({ length: 50 }, (_, j) => {
          const company = withPreviousNames[(i * 50 + j) % withPreviousNames.length]!;
          return {
            ...company,
            jurisdiction: 'G1',
            incorporatedDate: 'soon',
            addressStructured: { ...company.addressStructured, latitude: 'north', postcode: 7 },
            previousNames: [...company.previousNames, { name: 'Old', startDate: '2001-02-30' }, 'bad'],
            avatar: { image: 'ftp://x', initials: '' },
          };
        }),
      ),
  },
];

/** A request as keyOf reads it. */
/** The companies a page of 20 shows, by jurisdiction and number. */
const ANSWER_COMPANIES = companies.slice(0, 20).map((company) => ({ jurisdiction: 'GB', companyNumber: company.companyNumber }));

const ANSWER_REQUEST = {
  method: 'POST',
  url: '/graphql',
  headers: { accept: 'application/graphql-response+json', 'content-type': 'application/json' },
} as IncomingMessage;

/** The full search document, as the benchmark sends it. */
const SEARCH_DOCUMENT = readFileSync(new URL('../test/operations/search-companies.graphql', import.meta.url), 'utf8');

const ANSWER_SHAPES: AnswerShape[] = [
  { name: 'answer of 150 bytes', count: 100_000, bodyBytes: 150 },
  { name: 'answer of 2 KiB', count: 50_000, bodyBytes: 2_048 },
  { name: 'answer of 40 KiB', count: 2_000, bodyBytes: 40_960 },
];

interface AnswerShape {
  name: string;
  count: number;
  bodyBytes: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

interface Reading {
  heap: number;
  /** Process memory outside the JavaScript heap: ArrayBuffer contents and their C++ bookkeeping. */
  offHeap: number;
}

function afterGc(): Reading {
  gc!();
  gc!();
  const { heapUsed, heapTotal, rss } = process.memoryUsage();
  return { heap: heapUsed, offHeap: rss - heapTotal };
}

function row(cells: (string | number)[]): void {
  process.stdout.write(`| ${cells.join(' | ')} |\n`);
}

function measureWindows(shape: WindowShape): void {
  // As the search cache in upstream/search-windows.ts is made, without a bound that would evict.
  const windows = new LRUCache<string, SearchWindow>({
    maxSize: Number.MAX_SAFE_INTEGER,
    sizeCalculation: windowEntryBytes,
    ttl: 60_000,
    ttlResolution: 0,
  });
  let jsonBytes = 0;
  const before = afterGc();
  for (let i = 0; i < shape.count; i++) {
    const body = shape.body(i);
    jsonBytes += Buffer.byteLength(body);
    const read = readSearchResponse(body, 'GB', 'calibration', UPSTREAM_MAX_PAGE_SIZE);
    windows.set(windowKey({ q: `query words ${i}`, jurisdiction: 'GB' }, 0), {
      slots: read.slots,
      repeated: NO_REPEATS,
      total: read.total,
      fetchedAt: systemClock(),
      fetchedAtWall: wallTime(systemClock),
    });
  }
  const after = afterGc();
  if (windows.size !== shape.count) throw new Error('windows were evicted');
  const held = (after.heap - before.heap) / shape.count;
  const counted = windows.calculatedSize / shape.count;
  row([
    shape.name,
    shape.count,
    Math.round(jsonBytes / shape.count),
    Math.round(held),
    Math.round(counted),
    `${Math.round((counted / held - 1) * 100)}%`,
  ]);
}

function measureAnswers(shape: AnswerShape): void {
  const cache = new ResponseCache({ maxBytes: Number.MAX_SAFE_INTEGER, maxTtlMs: 60_000 });
  const before = afterGc();
  const text = 'x'.repeat(shape.bodyBytes);
  for (let i = 0; i < shape.count; i++) {
    const request = JSON.stringify({ query: SEARCH_DOCUMENT, variables: { q: `query words ${i}`, jurisdiction: 'GB', pageSize: 50 } });
    const key = cache.keyOf(ANSWER_REQUEST, Buffer.from(request));
    // Small bodies come from Node's shared pool, as Yoga's do; the cache keeps a copy of its own.
    const contentType = 'application/graphql-response+json; charset=utf-8';
    const body = Buffer.from(text);
    // The tags of a search answer that shows 20 companies, and a GET's ETag, as the responder keeps them.
    const tags = [...dataTags({ q: `query words ${i}`, jurisdiction: 'GB' }, ANSWER_COMPANIES)].join(' ');
    cache.set(key, { contentType, body, tags, freshUntil: Date.now() + 60_000, etag: etagOf(contentType, body) }, cache.purges);
  }
  const after = afterGc();
  const heap = (after.heap - before.heap) / shape.count;
  const offHeap = (after.offHeap - before.offHeap) / shape.count;
  const counted = cache.bytes / shape.count;
  row([
    shape.name,
    shape.count,
    Math.round(heap),
    Math.round(offHeap),
    Math.round(heap + offHeap),
    Math.round(counted),
    `${Math.round((counted / (heap + offHeap) - 1) * 100)}%`,
  ]);
}

function runChildren(names: string[]): void {
  for (const name of names) {
    const child = spawnSync(process.execPath, [...process.execArgv, '--expose-gc', process.argv[1]!, name], { stdio: 'inherit' });
    if (child.status !== 0) process.exitCode = 1;
  }
}

const only = process.argv[2];
if (only !== undefined) {
  if (!gc) throw new Error('run with --expose-gc');
  const windowShape = WINDOW_SHAPES.find((shape) => shape.name === only);
  if (windowShape) measureWindows(windowShape);
  else measureAnswers(ANSWER_SHAPES.find((shape) => shape.name === only)!);
} else {
  process.stdout.write('Search windows (upstream/window-size.ts)\n\n');
  row(['shape', 'windows', 'JSON bytes', 'heap bytes held', 'bytes counted', 'counted − held']);
  row(['---', '---:', '---:', '---:', '---:', '---:']);
  runChildren(WINDOW_SHAPES.map((shape) => shape.name));
  process.stdout.write('\nSerialized answers (gateway/response-cache/response-cache.ts), per answer kept\n\n');
  row(['shape', 'answers', 'heap bytes', 'RSS outside the heap', 'held', 'bytes counted', 'counted − held']);
  row(['---', '---:', '---:', '---:', '---:', '---:', '---:']);
  runChildren(ANSWER_SHAPES.map((shape) => shape.name));
}
