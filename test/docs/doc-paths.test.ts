/**
 * Every repository path that README.md and docs/*.md name exists, so that a
 * file moved or renamed fails here until the docs follow it. A name counts as
 * a path when it is in backticks (a command's words one by one), in a fenced
 * block, or the target of a relative link, and starts at a folder of the
 * repository's root (`test/…`) or of `src/` (`upstream/company.ts`, as the
 * map of the source writes it); a link is read from its page's folder.
 * Patterns (`*`, `<version>`, `…`) and names of no folder here (media types,
 * packages, paths in a container or a Kubernetes folder) are left alone.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).flatMap((file) => (file.endsWith('.md') ? [`docs/${file}`] : []))];

/** The folders a name may start from: the root, and `src/`. */
const BASES = ['', 'src/'].map((base) => ({
  base,
  folders: new Set(readdirSync(join(ROOT, base)).filter((name) => statSync(join(ROOT, base, name)).isDirectory())),
}));

/** Not a path of this repository, whatever its folders: a pattern, an assignment, a path from elsewhere, or a URL. */
const NOT_A_PATH = /[*<>{}$…=]|\.\.\.|^\.{1,2}\/|^[a-z][a-z0-9+.-]*:/i;

interface Name {
  name: string;
  /** A relative link's target, resolved from the page's folder to the root. */
  link: boolean;
}

/** What `page` names: words in backticks and fenced blocks, and links' targets; quotes, trailing punctuation and a `:line` cut off. */
function namesIn(page: string): Name[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const fenced = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map(([, block]) => block!);
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  const code = [...prose.matchAll(/`([^`]+)`/g)].map(([, span]) => span!);
  const words = [...fenced, ...code].flatMap((chunk) => chunk.split(/\s+/)).map((name) => ({ name, link: false }));
  const links = [...prose.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].flatMap(([, target]) =>
    NOT_A_PATH.test(target!) ? [] : [{ name: normalize(join(dirname(page), target!)), link: true }],
  );
  return [...words, ...links].map(({ name, link }) => ({
    name: name
      .replace(/^["'([]+/, '')
      .replace(/["',.:;)\]]+$/, '')
      .replace(/:\d+(-\d+)?$/, ''),
    link,
  }));
}

/** The paths among `page`'s names that do not exist, as the page writes them. */
function missingIn(page: string): string[] {
  const missing = new Set<string>();
  for (const { name, link } of namesIn(page)) {
    if (NOT_A_PATH.test(name)) continue;
    if (link) {
      if (!existsSync(join(ROOT, name))) missing.add(name);
      continue;
    }
    const [first, ...rest] = name.split('/');
    if (rest.length === 0) continue;
    const bases = BASES.filter(({ folders }) => folders.has(first!));
    if (bases.length > 0 && !bases.some(({ base }) => existsSync(join(ROOT, base, name)))) missing.add(name);
  }
  return [...missing];
}

describe('the repository paths the docs name', () => {
  it('finds names to check on every page', () => {
    expect(PAGES).toContain('docs/architecture.md');
    expect(namesIn('docs/architecture.md').map(({ name }) => name)).toEqual(
      expect.arrayContaining(['src/upstream/company.ts', 'upstream/company.ts', 'test/gateway/config/config-problems.test.ts']),
    );
  });

  it.each(PAGES)('%s names only paths that exist', (page) => {
    expect(missingIn(page)).toEqual([]);
  });
});
