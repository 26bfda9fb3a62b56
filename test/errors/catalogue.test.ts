import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, statusText } from '../../src/errors/codes.js';

const SRC = new URL('../../src/', import.meta.url);
/** The catalogue's own folder, and the embedded lookup service, a test double of another service with codes of its own. */
const EXEMPT = ['errors/', 'lookup-service/'];

interface Row {
  status: string;
  meaning: string;
  whatToDo: string;
}

/** The rows of README's "Error codes" table, by code, in their order. */
function readmeRows(): Map<string, Row> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split(/^## Error codes$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = new Map<string, Row>();
  for (const line of section.split('\n')) {
    const cells = /^\| `([A-Z_]+)` \|(.*)\|$/.exec(line);
    if (!cells) continue;
    const [status = '', meaning = '', whatToDo = ''] = cells[2]!.split('|').map((cell) => cell.trim());
    rows.set(cells[1]!, { status, meaning, whatToDo });
  }
  return rows;
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .map((path) => path.replaceAll('\\', '/'))
    .filter((path) => path.endsWith('.ts') && !EXEMPT.some((folder) => path.startsWith(folder)));
}

describe('the catalogue of error codes', () => {
  it("and README's table list the same codes, in the same order", () => {
    expect([...readmeRows().keys()]).toEqual(Object.keys(ERROR_CODES));
  });

  it("and README's table give each code the same status, meaning and what to do", () => {
    const rows = readmeRows();
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(rows.get(code), code).toEqual({ status: statusText(entry), meaning: entry.meaning, whatToDo: entry.whatToDo });
    }
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
