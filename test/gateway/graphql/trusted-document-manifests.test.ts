import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeConfig, readConfig } from '../../../src/gateway/config/gateway-config.js';
import { MAX_MANIFEST_BYTES, readTrustedDocuments } from '../../../src/gateway/graphql/trusted-documents.js';
import { CompanyByNumberDocument, DashboardSearchDocument, NodeByIdDocument, SearchCompaniesDocument } from '../../generated/graphql.js';
import { problemsOf } from '../../support/config-problems.js';
import { startStack, type Stack } from '../../support/stack.js';

const CODEGEN_MANIFEST: Record<string, string> = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../generated/persisted-documents.json', import.meta.url)), 'utf8'),
);
const idOf = (document: unknown) => (document as { __meta__: { hash: string } }).__meta__.hash;
const [dashboard, byNumber, byId, search] = [
  DashboardSearchDocument,
  CompanyByNumberDocument,
  NodeByIdDocument,
  SearchCompaniesDocument,
].map(idOf);

const dir = mkdtempSync(join(tmpdir(), 'trusted-manifests-'));
function writeManifest(path: string, ids: string[], replace: Record<string, string> = {}): string {
  const full = join(dir, path);
  writeFileSync(full, JSON.stringify(Object.fromEntries(ids.map((id) => [id, replace[id] ?? CODEGEN_MANIFEST[id]!]))));
  return full;
}

// Two apps, each with its own manifest; both use NodeById.
mkdirSync(join(dir, 'apps'));
const web = writeManifest('apps/web.json', [dashboard!, byId!]);
const mobile = writeManifest('apps/mobile.json', [byNumber!, byId!]);
writeFileSync(join(dir, 'apps', 'README.txt'), 'not a manifest');

describe.each([
  ['a comma-separated list of manifests', `${web}, ${mobile}`],
  ['a folder of manifests', join(dir, 'apps')],
])('TRUSTED_DOCUMENTS as %s', (_, setting) => {
  let stack: Stack;
  beforeAll(async () => {
    const { trustedDocuments, allowArbitraryOperations } = readConfig({ TRUSTED_DOCUMENTS: setting });
    stack = await startStack({ gateway: { trustedDocuments, allowArbitraryOperations } });
  });
  afterAll(() => stack.close());

  it('runs the documents of every manifest, and no other', async () => {
    const runs = async (documentId: string, variables: Record<string, unknown>) =>
      JSON.parse((await stack.post({ documentId, variables })).text);
    expect((await runs(dashboard!, { q: 'Zebra Quantum', jurisdiction: 'GB' })).data.searchCompanies.totalCount).toBe(1);
    expect((await runs(byNumber!, { jurisdiction: 'GB', companyNumber: '09876543' })).data.company.name).toBe(
      'Zebra Quantum Fisheries Ltd',
    );
    expect((await runs(search!, { q: 'Zebra Quantum', jurisdiction: 'GB' })).errors[0].extensions.code).toBe('TRUSTED_DOCUMENT_NOT_FOUND');
  });

  it('names the manifests read when the configuration is printed', () => {
    const printed = describeConfig(readConfig({ TRUSTED_DOCUMENTS: setting })).trustedDocuments as { manifests: string[] };
    expect({ ...printed, manifests: [...printed.manifests].sort() }).toEqual({ manifests: [mobile, web], documents: 3 });
  });
});

describe('checking several manifests at start', () => {
  it('refuses an id that names one document in one manifest and another in the next, naming both', () => {
    const forged = writeManifest('forged.json', [dashboard!], { [dashboard!]: '{ __typename }' });
    expect(() => readTrustedDocuments(`${web},${forged}`)).toThrow(
      `${dashboard} names one document in ${web} and another in ${forged}; rebuild the manifests from their apps' operations`,
    );
  });

  it('refuses an id that is not the hash of its document, naming its manifest', () => {
    const tampered = writeManifest('tampered.json', [byNumber!], { [byNumber!]: CODEGEN_MANIFEST[dashboard!]! });
    expect(() => readTrustedDocuments(`${web},${tampered}`)).toThrow(`${tampered}: ${byNumber} is not the SHA-256 of its document`);
  });

  it('refuses a folder without manifests, a missing entry, and a list of none, at start', () => {
    mkdirSync(join(dir, 'empty'));
    expect(problemsOf({ TRUSTED_DOCUMENTS: join(dir, 'empty') })).toEqual([
      `TRUSTED_DOCUMENTS: the folder ${join(dir, 'empty')} holds no *.json manifest`,
    ]);
    expect(problemsOf({ TRUSTED_DOCUMENTS: `${web},${join(dir, 'gone.json')}` })).toEqual([
      `TRUSTED_DOCUMENTS: cannot read ${join(dir, 'gone.json')}: ENOENT`,
    ]);
    expect(problemsOf({ TRUSTED_DOCUMENTS: ', ,' })).toEqual([
      'TRUSTED_DOCUMENTS: names no manifest; give the path of a manifest file or of a folder of them',
    ]);
  });
});

describe('manifests as Kubernetes mounts them, and files that are no manifest', () => {
  it('reads a mounted ConfigMap folder, whose manifests are links into its ..data folder', () => {
    // kubelet's layout: the files in a timestamped folder, `..data` leading to it, and each key a link through `..data`.
    const mount = join(dir, 'configmap');
    mkdirSync(join(mount, '..2026_11_28_01_00_00.000000001'), { recursive: true });
    copyFileSync(web, join(mount, '..2026_11_28_01_00_00.000000001', 'web.json'));
    copyFileSync(mobile, join(mount, '..2026_11_28_01_00_00.000000001', 'mobile.json'));
    symlinkSync('..2026_11_28_01_00_00.000000001', join(mount, '..data'));
    for (const name of ['web.json', 'mobile.json']) symlinkSync(join('..data', name), join(mount, name));
    const { manifests, documents } = readTrustedDocuments(mount);
    expect(manifests).toEqual([join(mount, 'mobile.json'), join(mount, 'web.json')]);
    expect([...documents.keys()].sort()).toEqual([byNumber!, byId!, dashboard!].sort());
  });

  it('refuses a manifest that is a named pipe or larger than 16 MiB, unread, naming it', () => {
    const pipe = join(dir, 'pipe.json');
    execFileSync('mkfifo', [pipe]);
    expect(problemsOf({ TRUSTED_DOCUMENTS: pipe })).toEqual([`TRUSTED_DOCUMENTS: ${pipe} is a named pipe, not a regular file`]);
    const large = join(dir, 'large.json');
    writeFileSync(large, ' '.repeat(MAX_MANIFEST_BYTES + 1));
    expect(MAX_MANIFEST_BYTES).toBe(16 * 1024 * 1024);
    expect(problemsOf({ TRUSTED_DOCUMENTS: large })).toEqual([
      `TRUSTED_DOCUMENTS: ${large} is larger than ${MAX_MANIFEST_BYTES} bytes, the most it may hold`,
    ]);
  });
});
