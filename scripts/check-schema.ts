/**
 * `npm run schema:check` (run by CI): fails when schema.graphql would break clients of the last release, or when an
 * operation clients send no longer validates against it.
 *
 * - Against the newest `releases/<version>/schema.graphql`: every breaking change graphql-js's own
 *   findBreakingChanges reports fails the check, except the removal of what that release had already deprecated
 *   (a field, an argument, an input field or an enum value with @deprecated; a type clients reach only through
 *   deprecated fields and arguments, where a type reached as an interface's implementation or a union's member
 *   counts as reached). Dangerous changes (findDangerousChanges: a value added to an enum, a default changed…) are
 *   printed and do not fail.
 * - Every operation in `test/operations/*.graphql` and every document of the trusted-document manifests
 *   (`test/generated/persisted-documents.json`) must validate against schema.graphql.
 *
 * Options (each defaults to the project's own): --schema FILE, --releases DIR, --operations DIR, --manifest FILE
 * (repeatable).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildSchema,
  findBreakingChanges,
  findDangerousChanges,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  Kind,
  parse,
  Source,
  validate,
} from 'graphql';

const ROOT = new URL('..', import.meta.url).pathname;

const { values: options } = parseArgs({
  options: {
    schema: { type: 'string', default: join(ROOT, 'schema.graphql') },
    releases: { type: 'string', default: join(ROOT, 'releases') },
    operations: { type: 'string', default: join(ROOT, 'test/operations') },
    manifest: { type: 'string', multiple: true, default: [join(ROOT, 'test/generated/persisted-documents.json')] },
  },
});

const problems: string[] = [];
const schema = buildSchema(readFileSync(options.schema, 'utf8'));

const release = lastRelease(options.releases);
if (release === undefined) {
  problems.push(`No release in ${options.releases}: keep the last release's schema there as <version>/schema.graphql`);
} else {
  const released = buildSchema(readFileSync(release.file, 'utf8'));
  const allowed = deprecatedRemovals(released, schema);
  for (const change of findBreakingChanges(released, schema)) {
    if (allowed.has(change.description)) {
      console.log(`Removed after its deprecation in ${release.version}: ${change.description}`);
    } else {
      problems.push(`Breaks clients of ${release.version} (${change.type}): ${change.description}`);
    }
  }
  for (const change of findDangerousChanges(released, schema)) {
    console.log(`Warning, may change what clients of ${release.version} see (${change.type}): ${change.description}`);
  }
}

// The operation files as one document, as codegen reads them (a fragment of one file is spread in another); each
// manifest entry alone, as a client sends it.
for (const document of [operationFiles(), ...trustedDocuments()]) {
  try {
    const definitions = document.sources.flatMap((source) => parse(source).definitions);
    for (const error of validate(schema, { kind: Kind.DOCUMENT, definitions })) {
      const where = error.nodes?.[0]?.loc?.source.name ?? document.name;
      problems.push(`${where} no longer validates: ${error.message}`);
    }
  } catch (error) {
    problems.push(`${document.name} does not parse: ${error instanceof Error ? error.message : String(error)}`);
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(
    `\n${options.schema} fails the schema check. Deprecate (@deprecated) a field, argument or enum value in one release and remove it in a later one; change an operation or a manifest together with the schema it runs on.`,
  );
  process.exit(1);
}
console.log(`${options.schema}: compatible with release ${release?.version}; every operation and trusted document validates.`);

/** The highest version among the folders of `dir` that hold a schema.graphql. */
function lastRelease(dir: string): { version: string; file: string } | undefined {
  const versions = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d+\.\d+\.\d+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => {
      const [x, y] = [a, b].map((version) => version.split('.').map(Number));
      return x!.map((part, index) => part - y![index]!).find((difference) => difference !== 0) ?? 0;
    });
  const version = versions.at(-1);
  return version === undefined ? undefined : { version, file: join(dir, version, 'schema.graphql') };
}

/** The descriptions findBreakingChanges gives the removals of what `released` had deprecated and `next` no longer has. */
function deprecatedRemovals(released: GraphQLSchema, next: GraphQLSchema): Set<string> {
  const allowed = new Set<string>();
  const types = Object.values(released.getTypeMap()).filter((type) => !type.name.startsWith('__'));
  for (const type of types) {
    const nextType = next.getType(type.name);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      const nextFields = nextType && 'getFields' in nextType ? nextType.getFields() : {};
      for (const field of Object.values(type.getFields())) {
        const nextField = nextFields[field.name];
        if (field.deprecationReason != null && nextType !== undefined && nextField === undefined) {
          allowed.add(`${type.name}.${field.name} was removed.`);
        }
        for (const arg of 'args' in field ? field.args : []) {
          const deprecated = arg.deprecationReason != null || field.deprecationReason != null;
          if (deprecated && nextField !== undefined && !('args' in nextField && nextField.args.some(({ name }) => name === arg.name))) {
            allowed.add(`${type.name}.${field.name} arg ${arg.name} was removed.`);
          }
        }
      }
    }
    if (isEnumType(type) && nextType !== undefined && isEnumType(nextType)) {
      for (const value of type.getValues()) {
        if (value.deprecationReason != null && nextType.getValue(value.name) === undefined) {
          allowed.add(`${value.name} was removed from enum type ${type.name}.`);
        }
      }
    }
  }
  const reachable = reachableTypes(released);
  for (const type of types) {
    if (!reachable.has(type.name) && next.getType(type.name) === undefined) allowed.add(`${type.name} was removed.`);
  }
  return allowed;
}

/**
 * The names of the types a client of `schema` can use without a deprecated
 * field or argument: the root types and the types of the directives'
 * arguments, and what they lead to through fields, arguments and input
 * fields not deprecated; through each implementation of an interface and
 * each member of a union (a fragment on it is valid wherever the abstract
 * type is selected, `... on Officer`); and through the interfaces a type
 * implements (a fragment on them is valid in its selections). A type outside
 * it is used only through something deprecated, and may go with it.
 */
function reachableTypes(schema: GraphQLSchema): Set<string> {
  const reached = new Set<string>();
  const pending: GraphQLNamedType[] = [];
  const reach = (type: GraphQLType) => {
    const named = getNamedType(type);
    if (reached.has(named.name)) return;
    reached.add(named.name);
    pending.push(named);
  };
  const notDeprecated = <T extends { deprecationReason?: string | null }>(items: readonly T[]) =>
    items.filter((item) => item.deprecationReason == null);
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) if (root) reach(root);
  for (const directive of schema.getDirectives()) for (const arg of notDeprecated(directive.args)) reach(arg.type);
  for (let type = pending.pop(); type !== undefined; type = pending.pop()) {
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of notDeprecated(Object.values(type.getFields()))) {
        reach(field.type);
        for (const arg of notDeprecated(field.args)) reach(arg.type);
      }
      for (const implemented of type.getInterfaces()) reach(implemented);
    }
    if (isInterfaceType(type)) {
      const { objects, interfaces } = schema.getImplementations(type);
      for (const implementation of [...objects, ...interfaces]) reach(implementation);
    }
    if (isUnionType(type)) for (const member of type.getTypes()) reach(member);
    if (isInputObjectType(type)) for (const field of notDeprecated(Object.values(type.getFields()))) reach(field.type);
  }
  return reached;
}

interface Document {
  name: string;
  sources: Source[];
}

function operationFiles(): Document {
  const files = readdirSync(options.operations).filter((file) => file.endsWith('.graphql'));
  const sources = files.map((file) => new Source(readFileSync(join(options.operations, file), 'utf8'), join(options.operations, file)));
  return { name: options.operations, sources };
}

function trustedDocuments(): Document[] {
  return options.manifest.flatMap((file) =>
    Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>).map(([id, text]) => {
      const name = `${file} (${id})`;
      return { name, sources: [new Source(text, name)] };
    }),
  );
}
