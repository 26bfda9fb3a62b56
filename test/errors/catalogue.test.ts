import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/codes.js';
import { errorReference } from '../../scripts/error-reference.js';

const SRC = new URL('../../src/', import.meta.url);
/** The catalogue's own folder, and the embedded lookup service, a test double of another service with codes of its own. */
const EXEMPT = ['errors/', 'lookup-service/'];

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .map((path) => path.replaceAll('\\', '/'))
    .filter((path) => path.endsWith('.ts') && !EXEMPT.some((folder) => path.startsWith(folder)));
}

describe('the catalogue of error codes', () => {
  it('is what docs/errors.md lists (`npm run docs:errors` makes it from the catalogue)', () => {
    const committed = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    expect(committed).toBe(errorReference());
    for (const code of Object.keys(ERROR_CODES)) expect(committed).toContain(`| \`${code}\` |`);
  });

  it('holds the only codes written in src/: no string literal names one, and no code is set from a literal', () => {
    const catalogued = new RegExp(`['"](${Object.keys(ERROR_CODES).join('|')})['"]`, 'g');
    const literalCode = /\bcode\s*[:=]\s*['"][A-Z][A-Z0-9_]*['"]/g;
    const found = sourceFiles().flatMap((path) => {
      const text = readFileSync(new URL(path, SRC), 'utf8');
      return [...text.matchAll(catalogued), ...text.matchAll(literalCode)].map((match) => `${path}: ${match[0]}`);
    });
    expect(sourceFiles().length).toBeGreaterThan(50);
    expect(found).toEqual([]);
  });
});
