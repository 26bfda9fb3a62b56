import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Kind, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import codegen from '../../codegen.js';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { defaultText, type Setting } from '../../src/gateway/config/kinds.js';
import { SETTING_GROUPS } from '../../src/gateway/config/settings.js';
import { startStack, type Stack } from '../support/stack.js';

const ROOT = new URL('../../', import.meta.url);
const README = readFileSync(new URL('README.md', ROOT), 'utf8');
/** The client developers' page: the example operations and client set-ups, embedded as the files are. */
const CLIENTS = readFileSync(new URL('docs/clients.md', ROOT), 'utf8');
const OPERATIONS = readFileSync(new URL('docs/operations.md', ROOT), 'utf8');

/** Each `<!-- file: path -->` and the fenced block right below it. */
const EMBEDDED = [...CLIENTS.matchAll(/^<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)\n```$/gm)].map(([, path, block]) => ({
  path: path!,
  block: block!,
}));

describe('docs/clients.md examples', () => {
  it('holds every file it embeds as the file is', () => {
    expect(EMBEDDED.length).toBeGreaterThanOrEqual(8);
    expect(CLIENTS.match(/<!-- file: /g)).toHaveLength(EMBEDDED.length);
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

  it('generates API keys the way GATEWAY_API_KEYS takes them (docs/operations.md)', () => {
    expect(OPERATIONS).toContain('echo "web:$(openssl rand -hex 32)"');
    // What the command prints: the id, a colon and 32 random bytes in hex.
    const entry = `web:${randomBytes(32).toString('hex')}`;
    expect(readConfig({ GATEWAY_API_KEYS: entry }).apiKeys.map((key) => key.id)).toEqual(['web']);
  });
});

describe('the answers the examples show, from a running gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it("gets the README's answer to the README's query, keys in the order asked", async () => {
    const [, body, answer] = /^ {2}-d '(\{.*\})'\n```\n\n.*\n\n```json\n([\s\S]*?)\n```$/m.exec(README) ?? [];
    expect(body).toBeDefined();
    const { text } = await stack.post(JSON.parse(body!));
    expect(text).toBe(JSON.stringify(JSON.parse(answer!)));
  });

  it('finds the id it shows in a search, and fetches the company again with it', async () => {
    const [, search, id, name] =
      /`(\{ searchCompanies\(.*?\) \{ nodes \{ id name \} \} \})`\n.*?\{"id": "([^"]+)", "name": "([^"]+)"\}/s.exec(CLIENTS) ?? [];
    expect(search).toBeDefined();
    const searched = JSON.parse((await stack.post({ query: search })).text);
    expect(searched.data.searchCompanies.nodes).toEqual([{ id, name }]);
    const node = readFileSync(new URL('test/operations/node-by-id.graphql', ROOT), 'utf8');
    const fetched = JSON.parse((await stack.post({ query: node, variables: { id } })).text);
    expect(fetched.data.node).toMatchObject({ id, name });
  });
});

describe("the README's settings", () => {
  const declared = new Map(
    SETTING_GROUPS.flatMap(({ settings }) =>
      (Object.values(settings) as Setting<unknown>[]).map((setting) => [setting.env, setting] as const),
    ),
  );
  const rows = [...README.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]+) \|/gm)].map(([, name, shown]) => ({
    name: name!,
    shown: shown!.trim(),
  }));

  it('lists ten declared settings, each with the default its declaration gives', () => {
    expect(rows).toHaveLength(10);
    for (const { name, shown } of rows) {
      const setting = declared.get(name);
      expect(setting, name).toBeDefined();
      expect(shown, name).toBe(defaultText(setting!));
    }
  });

  it('keeps the two commands that set everything up', () => {
    expect(README).toContain('```sh\nnpm ci && npm start\n```');
    expect(README).toContain('```sh\nnpm ci && npm test\n```');
  });

  it('stays short, and links every page of docs/', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(200);
    const pages = readdirSync(new URL('docs/', ROOT)).filter((file) => file.endsWith('.md'));
    expect(pages.filter((page) => !README.includes(`](docs/${page})`))).toEqual([]);
  });
});
