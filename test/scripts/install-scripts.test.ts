import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe("npm ci's install-scripts warning", () => {
  it("is dealt with for every installed package with an install script: package.json's allowScripts names each", () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .sort();
    expect(withScripts.length).toBeGreaterThan(0);
    expect(Object.keys((read('package.json') as { allowScripts?: object }).allowScripts ?? {}).sort()).toEqual([...new Set(withScripts)]);
  });
});
