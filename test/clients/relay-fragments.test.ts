import { readFileSync } from 'node:fs';
import {
  buildSchema,
  type DocumentNode,
  type FragmentDefinitionNode,
  Kind,
  NoUnusedFragmentsRule,
  parse,
  print,
  specifiedRules,
  validate,
  visit,
} from 'graphql';
import { describe, expect, it } from 'vitest';

const SCHEMA = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
const FRAGMENTS = parse(readFileSync(new URL('./relay-fragments.graphql', import.meta.url), 'utf8'));

/** The Relay directives the fragments use, as the Relay compiler knows them (@argumentDefinitions is read below). */
const RELAY_DIRECTIVES = `
  directive @connection(key: String!, filters: [String]) on FIELD
  directive @refetchable(queryName: String!) on FRAGMENT_DEFINITION
`;
const schema = buildSchema(`${SCHEMA}\n${RELAY_DIRECTIVES}`);

/** `{ name: "Type" }` of a fragment's @argumentDefinitions, which become its refetch query's variables. */
function argumentDefinitions(fragment: FragmentDefinitionNode): string[] {
  const directive = fragment.directives?.find((node) => node.name.value === 'argumentDefinitions');
  return (directive?.arguments ?? []).map((argument) => {
    if (argument.value.kind !== Kind.OBJECT) throw new Error(`@argumentDefinitions(${argument.name.value}) is not an object`);
    const type = argument.value.fields.find((field) => field.name.value === 'type')?.value;
    if (type?.kind !== Kind.STRING) throw new Error(`@argumentDefinitions(${argument.name.value}) has no type`);
    return `$${argument.name.value}: ${type.value}`;
  });
}

/** The fragments without @argumentDefinitions, whose arguments graphql-js cannot know. */
const fragmentsAlone = visit(FRAGMENTS, {
  Directive: (node) => (node.name.value === 'argumentDefinitions' ? null : undefined),
}) as DocumentNode;

/** The query Relay's compiler writes for a @refetchable fragment: on Query, with its argument definitions as variables; on a Node, through node(id:). */
function refetchQuery(fragment: FragmentDefinitionNode): string {
  const name = fragment.name.value;
  if (fragment.typeCondition.name.value === 'Query') {
    const variables = argumentDefinitions(fragment);
    return `query Refetch${name}${variables.length > 0 ? `(${variables.join(', ')})` : ''} { ...${name} }`;
  }
  return `query Refetch${name}($id: ID!) { node(id: $id) { ...${name} } }`;
}

/** Each query below uses only some of the fragments printed with it. */
const rules = specifiedRules.filter((rule) => rule !== NoUnusedFragmentsRule);

describe("docs/clients.md's Relay fragments", () => {
  const fragments = FRAGMENTS.definitions.filter((node) => node.kind === Kind.FRAGMENT_DEFINITION);

  it('fit the schema, Relay directives aside', () => {
    expect(fragments.map((fragment) => fragment.name.value)).toEqual(['CompanyList_query', 'CompanyCard_company']);
    expect(validate(schema, fragmentsAlone, rules).map((error) => error.message)).toEqual([]);
  });

  it.each(fragments.map((fragment) => [fragment.name.value, fragment] as const))(
    'makes a refetch query that validates, variables included (%s)',
    (_, fragment) => {
      const query = parse(`${refetchQuery(fragment)}\n${print(fragmentsAlone)}`);
      expect(validate(schema, query, rules).map((error) => error.message)).toEqual([]);
    },
  );
});
