import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/check-schema.ts', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run schema:check` on a fixture: release 1.0.0, `schemas/<schema>.graphql` as the next schema, the fixture's operations and manifest. */
function check(schema: string, operations = 'operations'): Promise<Run> {
  const args = ['--import', 'tsx', SCRIPT, '--releases', `${FIXTURES}releases`, '--schema', `${FIXTURES}schemas/${schema}.graphql`];
  args.push('--operations', `${FIXTURES}${operations}`, '--manifest', `${FIXTURES}manifest.json`);
  return new Promise((resolve) => {
    execFile(process.execPath, args, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr });
    });
  });
}

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
    const breaks = run.stderr.split('\n').filter((line) => line.startsWith('Breaks clients of 1.0.0'));
    expect(breaks.sort()).toEqual([
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
      'Removed after its deprecation in 1.0.0: LegacyRecord was removed.',
      'Removed after its deprecation in 1.0.0: Query.search arg region was removed.',
    ]);
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
