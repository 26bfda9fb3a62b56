import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/check-schema.ts', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run schema:check` of `schema` as the next schema against `releases` (release 1.0.0), with the fixture's operations and manifest. */
function checkFile(schema: string, releases = `${FIXTURES}releases`): Promise<Run> {
  const args = ['--import', 'tsx', SCRIPT, '--releases', releases, '--schema', schema];
  args.push('--operations', `${FIXTURES}operations`, '--manifest', `${FIXTURES}manifest.json`);
  return new Promise((resolve) => {
    execFile(process.execPath, args, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr });
    });
  });
}

/** The check of the fixture `schemas/<schema>.graphql`. */
const check = (schema: string) => checkFile(`${FIXTURES}schemas/${schema}.graphql`);

const RELEASE = readFileSync(`${FIXTURES}releases/1.0.0/schema.graphql`, 'utf8');
const ABSTRACT_TYPES = readFileSync(`${FIXTURES}abstract-types.graphql`, 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'schema-check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The check of release 1.0.0 with the types of abstract-types.graphql added, against the same with those types as
 * `edit` leaves them: each case writes the two schemas in a folder of its own.
 */
function checkAbstractTypesEdited(edit: (types: string) => string): Promise<Run> {
  const edited = edit(ABSTRACT_TYPES);
  expect(edited).not.toBe(ABSTRACT_TYPES);
  const folder = mkdtempSync(join(scratch, 'case-'));
  mkdirSync(join(folder, '1.0.0'));
  writeFileSync(join(folder, '1.0.0', 'schema.graphql'), `${RELEASE}\n${ABSTRACT_TYPES}`);
  writeFileSync(join(folder, 'next.graphql'), `${RELEASE}\n${edited}`);
  return checkFile(join(folder, 'next.graphql'), folder);
}

/** `sdl` without the object type `name` and its description. */
const withoutType = (sdl: string, name: string) => sdl.replace(new RegExp(`("""[^"]*"""\\n)?type ${name}\\b[^{]*\\{[^}]*\\}\\n`), '');

/** The breaks a run names, sorted. */
const breaksIn = (run: Run) =>
  run.stderr
    .split('\n')
    .filter((line) => line.startsWith('Breaks clients of 1.0.0'))
    .sort();

describe.concurrent('the schema check (npm run schema:check)', () => {
  it('passes a schema that only adds to the last release', async () => {
    const run = await check('additive');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/compatible with release 1\.0\.0; every operation and trusted document validates/);
  });

  it('fails a schema that breaks clients of the last release, naming each break', async () => {
    const run = await check('breaking');
    expect(run.code).toBe(1);
    expect(breaksIn(run)).toEqual([
      'Breaks clients of 1.0.0 (FIELD_CHANGED_KIND): Company.previousNames changed type from [String!]! to [String!].',
      'Breaks clients of 1.0.0 (FIELD_REMOVED): Company.name was removed.',
      'Breaks clients of 1.0.0 (REQUIRED_ARG_ADDED): A required arg pageSize on Query.search was added.',
      'Breaks clients of 1.0.0 (VALUE_REMOVED_FROM_ENUM): PUBLIC was removed from enum type Kind.',
    ]);
    // The operations that select the removed field are named too, by file.
    expect(run.stderr).toMatch(/company-name\.graphql no longer validates: Cannot query field "name" on type "Company"\./);
    expect(run.stderr).toMatch(/Deprecate \(@deprecated\) a field, argument or enum value in one release and remove it in a later one/);
  });

  it('passes the removal of a field, an argument, an enum value and a type the last release had deprecated', async () => {
    const run = await check('removed-after-deprecation');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const removals = run.stdout.split('\n').filter((line) => line.startsWith('Removed after its deprecation'));
    expect(removals.sort()).toEqual([
      'Removed after its deprecation in 1.0.0: Company.formerName was removed.',
      'Removed after its deprecation in 1.0.0: Company.legacy was removed.',
      'Removed after its deprecation in 1.0.0: DORMANT was removed from enum type Kind.',
      // Reachable only through LegacyRecord: it goes with it.
      'Removed after its deprecation in 1.0.0: LegacyDetail was removed.',
      'Removed after its deprecation in 1.0.0: LegacyRecord was removed.',
      'Removed after its deprecation in 1.0.0: Query.search arg region was removed.',
    ]);
  });

  it('fails the removal of a type never deprecated that clients reach only as an implementation of an interface', async () => {
    // `{ node(id: "1") { ... on Officer { name } } }` is valid against the release, and would no longer be.
    const run = await checkAbstractTypesEdited((types) => withoutType(types, 'Officer'));
    expect(run.code).toBe(1);
    expect(breaksIn(run)).toEqual(['Breaks clients of 1.0.0 (TYPE_REMOVED): Officer was removed.']);
    expect(run.stdout).not.toMatch(/Removed after its deprecation/);
  });

  it('fails the removal of a type never deprecated that clients reach only as a member of a union', async () => {
    const run = await checkAbstractTypesEdited((types) =>
      withoutType(types, 'Person').replace('union Party = Company | Person', 'union Party = Company'),
    );
    expect(run.code).toBe(1);
    expect(breaksIn(run)).toEqual([
      'Breaks clients of 1.0.0 (TYPE_REMOVED): Person was removed.',
      'Breaks clients of 1.0.0 (TYPE_REMOVED_FROM_UNION): Person was removed from union type Party.',
    ]);
    expect(run.stdout).not.toMatch(/Removed after its deprecation/);
  });

  it('warns of a dangerous change without failing', async () => {
    const run = await check('dangerous');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /Warning, may change what clients of 1\.0\.0 see \(VALUE_ADDED_TO_ENUM\): DISSOLVED was added to enum type Kind\./,
    );
  });

  it('fails when a trusted document no longer validates, naming the manifest entry', async () => {
    const run = await check('breaking');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/manifest\.json \(sha256:[0-9a-f]{64}\) no longer validates: Cannot query field "name" on type "Company"\./);
  });
});
