import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BROTLI_QUALITY, BROTLI_WINDOW_BITS, DEFAULT_COPIES_DIR } from '../../../src/gateway/graphiql/compressed-copies.js';
import { precompressGraphiql } from '../../../src/gateway/graphiql/precompress.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("GraphiQL's compression at install (npm run build)", () => {
  it('says what it is about to compress before it starts, so an install does not sit silent, then what it made', async () => {
    // The copies the suite's setup made, less the smallest Brotli one: one copy to make, at the levels an install uses.
    dir = mkdtempSync(join(tmpdir(), 'graphiql-copies-'));
    cpSync(DEFAULT_COPIES_DIR, dir, { recursive: true });
    const brotliCopies = readdirSync(dir).filter((name) => name.endsWith(`.q${BROTLI_QUALITY}w${BROTLI_WINDOW_BITS}.br`));
    const [smallest] = brotliCopies.sort((a, b) => statSync(join(dir!, a)).size - statSync(join(dir!, b)).size);
    rmSync(join(dir, smallest!));

    const lines: string[] = [];
    const summary = await precompressGraphiql(dir, (line) => lines.push(`progress: ${line}`));
    lines.push(`summary: ${summary}`);
    expect(lines).toEqual([
      expect.stringMatching(/^progress: GraphiQL: compressing \d+ files \(br, gzip\) for serving…$/),
      expect.stringMatching(/^summary: GraphiQL: \d+ files, [\d.]+ MB; br [\d.]+ MB, gzip [\d.]+ MB; 1 copies made in [\d.]+ s \(/),
    ]);
    expect(brotliDecompressSync(readFileSync(join(dir, smallest!))).length).toBeGreaterThan(0);
  });

  it('says nothing before its summary when every copy is there', async () => {
    const lines: string[] = [];
    const summary = await precompressGraphiql(DEFAULT_COPIES_DIR, (line) => lines.push(line));
    expect(lines).toEqual([]);
    expect(summary).toMatch(/; all copies already made \(/);
  });
});
