import { existsSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const { version } = JSON.parse(read('package.json')) as { version: string };

describe('the release named in package.json', () => {
  it('is the image the deploy files run, the latest release of the change log, and has its schema in releases/', () => {
    const compose = load(read('deploy/compose/compose.yaml')) as { 'x-gateway': { image: string } };
    expect(compose['x-gateway'].image).toBe(`\${GATEWAY_IMAGE:-localhost/company-search-gateway:${version}}`);
    for (const kustomization of ['base', 'example']) {
      const { images } = load(read(`deploy/kubernetes/${kustomization}/kustomization.yaml`)) as { images: { newTag: string }[] };
      expect(images.map((image) => image.newTag)).toEqual([version]);
    }
    const releases = [...read('CHANGELOG.md').matchAll(/^## (\d+\.\d+\.\d+) - \d{4}-\d{2}-\d{2}$/gm)].map((match) => match[1]);
    expect(releases[0]).toBe(version);
    expect(existsSync(new URL(`../../releases/${version}/schema.graphql`, import.meta.url))).toBe(true);
  });
});
