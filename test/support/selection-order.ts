import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isCompositeType,
  Kind,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValueNode,
  valueFromASTUntyped,
} from 'graphql';

type Json = unknown;

/**
 * Where in `data` (an answer to `document`'s only operation, with
 * `variables`) an object's keys are not the ones its selection asks for, in
 * the order it asks for them: the specification's "Serialized Map Ordering".
 * Each key stands where its response name (alias or field name) is first
 * selected, fragments and inline fragments read in place where their type
 * applies, a selection under `@skip(if: true)` or `@include(if: false)` left
 * out. Written here from the specification, not from an executor. Returns
 * one line per object that differs (none: the answer is in order), and how
 * many objects were compared.
 */
export function selectionOrderProblems(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, Json>,
  data: Json,
): { problems: string[]; objects: number } {
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) throw new Error('selectionOrderProblems takes a document of one operation');
  const operation = operations[0] as OperationDefinitionNode;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const values: Record<string, Json> = {};
  for (const { variable, defaultValue } of operation.variableDefinitions ?? []) {
    const name = variable.name.value;
    if (name in variables) values[name] = variables[name];
    else if (defaultValue !== undefined) values[name] = valueFromASTUntyped(defaultValue);
  }
  const problems: string[] = [];
  let objects = 0;
  const root = schema.getRootType(operation.operation);
  if (root === null || root === undefined) throw new Error(`The schema has no ${operation.operation} type`);
  walk(root, [operation.selectionSet], data, 'data');
  return { problems, objects };

  function walk(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[], value: Json, path: string): void {
    if (value === null || value === undefined) return;
    if (typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`${path}: an object was selected, the answer has ${JSON.stringify(value)}`);
      return;
    }
    const fields = new Map<string, { name: string; selectionSets: SelectionSetNode[] }>();
    for (const selectionSet of selectionSets) collect(type, selectionSet, fields, new Set());
    const object = value as Record<string, Json>;
    objects += 1;
    const expected = [...fields.keys()];
    const actual = Object.keys(object);
    if (actual.join() !== expected.join()) problems.push(`${path}: keys ${actual.join(', ')}; selected ${expected.join(', ')}`);
    for (const [key, { name, selectionSets: below }] of fields) {
      const field = type.getFields()[name];
      if (field === undefined || below.length === 0) continue; // __typename, or a leaf
      const named = getNamedType(field.type);
      if (isCompositeType(named)) walkValue(named, below, object[key], `${path}.${key}`);
    }
  }

  /** A value of a composite type: an object, or lists of them, the object's type read from `__typename` where the field's type is abstract. */
  function walkValue(type: ReturnType<typeof getNamedType>, selectionSets: SelectionSetNode[], value: Json, path: string): void {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walkValue(type, selectionSets, item, `${path}[${index}]`);
      return;
    }
    if (value === null || value === undefined) return;
    if (!isAbstractType(type)) {
      walk(type as GraphQLObjectType, selectionSets, value, path);
      return;
    }
    const possible = schema.getPossibleTypes(type);
    const typename = (value as Record<string, Json>).__typename;
    const concrete = possible.length === 1 ? possible[0] : possible.find(({ name }) => name === typename);
    if (concrete === undefined) problems.push(`${path}: of abstract type ${type.name}, select __typename to tell its type`);
    else walk(concrete, selectionSets, value, path);
  }

  function collect(
    type: GraphQLObjectType,
    selectionSet: SelectionSetNode,
    fields: Map<string, { name: string; selectionSets: SelectionSetNode[] }>,
    spread: Set<string>,
  ): void {
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        let entry = fields.get(key);
        if (entry === undefined) {
          entry = { name: selection.name.value, selectionSets: [] };
          fields.set(key, entry);
        }
        if (selection.selectionSet) entry.selectionSets.push(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(type, selection.typeCondition?.name.value)) collect(type, selection.selectionSet, fields, spread);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (spread.has(name) || fragment === undefined) continue;
        spread.add(name);
        if (applies(type, fragment.typeCondition.name.value)) collect(type, fragment.selectionSet, fields, spread);
      }
    }
  }

  function applies(type: GraphQLObjectType, condition: string | undefined): boolean {
    if (condition === undefined || condition === type.name) return true;
    const conditionType = schema.getType(condition);
    return conditionType !== undefined && isAbstractType(conditionType) && schema.isSubType(conditionType, type);
  }

  function included(selection: SelectionNode): boolean {
    for (const directive of selection.directives ?? []) {
      const name = directive.name.value;
      if (name !== 'skip' && name !== 'include') continue;
      const condition = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
      const value = condition === undefined ? undefined : conditionValue(condition);
      if (name === 'skip' && value === true) return false;
      if (name === 'include' && value !== true) return false;
    }
    return true;
  }

  function conditionValue(node: ValueNode): Json {
    return node.kind === Kind.VARIABLE ? values[node.name.value] : valueFromASTUntyped(node);
  }
}
