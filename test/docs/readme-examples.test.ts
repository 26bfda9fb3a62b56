import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Kind, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import codegen from '../../codegen.js';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { startStack, type Stack } from '../support/stack.js';

const ROOT = new URL('../../', import.meta.url);
const README = readFileSync(new URL('README.md', ROOT), 'utf8');

/** Each `<!-- file: path -->` and the fenced block right below it. */
const EMBEDDED = [...README.matchAll(/^<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)\n```$/gm)].map(([, path, block]) => ({
  path: path!,
  block: block!,
}));

describe('README examples', () => {
  it('holds every file it embeds as the file is', () => {
    expect(EMBEDDED.length).toBeGreaterThanOrEqual(8);
    expect(README.match(/<!-- file: /g)).toHaveLength(EMBEDDED.length);
    for (const { path, block } of EMBEDDED) {
      expect(block, path).toBe(readFileSync(new URL(path, ROOT), 'utf8').trimEnd());
    }
  });

  it('embeds every example operation of test/operations/', () => {
    const operations = readdirSync(new URL('test/operations/', ROOT)).map((file) => `test/operations/${file}`);
    expect(operations.filter((path) => !EMBEDDED.some((embedded) => embedded.path === path))).toEqual([]);
  });

  it('maps every custom scalar of the schema in the codegen config it shows, so none is typed unknown', () => {
    const schema = parse(readFileSync(new URL('schema.graphql', ROOT), 'utf8'));
    const scalars = schema.definitions.flatMap((node) => (node.kind === Kind.SCALAR_TYPE_DEFINITION ? [node.name.value] : []));
    const output = Object.values(codegen.generates)[0] as { config: { scalars: Record<string, string> } };
    expect(scalars.length).toBeGreaterThan(0);
    expect(Object.keys(output.config.scalars).sort()).toEqual(scalars.sort());
  });

  it('generates API keys the way GATEWAY_API_KEYS takes them', () => {
    expect(README).toContain('echo "web:$(openssl rand -hex 32)"');
    // What the command prints: the id, a colon and 32 random bytes in hex.
    const entry = `web:${randomBytes(32).toString('hex')}`;
    expect(readConfig({ GATEWAY_API_KEYS: entry }).apiKeys.map((key) => key.id)).toEqual(['web']);
  });
});

describe("README's node(id:) example", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('finds the id it shows in a search, and fetches the company again with it', async () => {
    const [, search, id, name] =
      /`(\{ searchCompanies\(.*?\) \{ nodes \{ id name \} \} \})`\n.*?\{"id": "([^"]+)", "name": "([^"]+)"\}/s.exec(README) ?? [];
    expect(search).toBeDefined();
    const searched = JSON.parse((await stack.post({ query: search })).text);
    expect(searched.data.searchCompanies.nodes).toEqual([{ id, name }]);
    const node = readFileSync(new URL('test/operations/node-by-id.graphql', ROOT), 'utf8');
    const fetched = JSON.parse((await stack.post({ query: node, variables: { id } })).text);
    expect(fetched.data.node).toMatchObject({ id, name });
  });
});
