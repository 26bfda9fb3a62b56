import {
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isCompositeType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  typeFromAST,
} from 'graphql';

/**
 * Where, in one selection set, a value can complete asynchronously: the one
 * response key whose resolver returns a promise (`resolverAsync`) or whose
 * selection below holds such a key (`below`). null: none can.
 */
export interface SettleOrder {
  readonly key: string;
  readonly resolverAsync: boolean;
  readonly below: SettleOrder | null;
}

/**
 * The operation has a selection set with two keys that may complete asynchronously (their order is the order they
 * settle in), or a key graphql-jit cannot write (`__proto__`): graphql-js answers it.
 */
export const UNPREDICTABLE = Symbol('unpredictable');

/**
 * The order @graphql-tools/executor writes `operation`'s answer in, as far as
 * it differs from the document's: it writes an object's synchronous fields
 * first, in document order, and an asynchronous one when it settles. A field
 * is asynchronous when its resolver returns a promise (`asyncResolvers`), or
 * when its value holds an asynchronous field: an object with one, a list with
 * such an object. With one such key per selection set, the order is known:
 * that key last, when it turned out asynchronous. With two, it is the order
 * they settle in, UNPREDICTABLE. The walk visits each field of the document
 * once per type it may be read on, as many as the document's limits allow.
 */
export function settleOrderOf(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  asyncResolvers: ReadonlySet<string>,
): SettleOrder | null | typeof UNPREDICTABLE {
  const root = schema.getRootType(operation.operation);
  if (!root) return UNPREDICTABLE;
  try {
    return ofSelections(root, [operation.selectionSet]);
  } catch (error) {
    if (error === UNPREDICTABLE) return UNPREDICTABLE;
    throw error;
  }

  function ofSelections(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): SettleOrder | null {
    const fields = new Map<string, { name: string; selectionSets: SelectionSetNode[] }>();
    const seen: Seen = { conditional: false, repeated: false };
    for (const selectionSet of selectionSets) collect(type, selectionSet, fields, new Set(), seen);
    // graphql-jit puts a key selected twice where its first selection is, skipped or not; graphql-js where the first one included is.
    if (seen.conditional && seen.repeated) throw UNPREDICTABLE;
    let order: SettleOrder | null = null;
    for (const [key, { name, selectionSets: below }] of fields) {
      const definition = type.getFields()[name];
      if (definition === undefined) continue; // __typename, answered on the spot
      const resolverAsync = asyncResolvers.has(`${type.name}.${name}`);
      const named = getNamedType(definition.type);
      const belowOrder = isCompositeType(named) ? ofComposite(named, below) : null;
      if (!resolverAsync && belowOrder === null) continue;
      if (order !== null) throw UNPREDICTABLE;
      order = { key, resolverAsync, below: belowOrder };
    }
    return order;
  }

  /** An abstract type's selection, read on each type it may be: the same order for all of them, or none that needs one. */
  function ofComposite(type: GraphQLCompositeType, selectionSets: readonly SelectionSetNode[]): SettleOrder | null {
    if (!isAbstractType(type)) return ofSelections(type, selectionSets);
    const orders = schema.getPossibleTypes(type).map((possible) => ofSelections(possible, selectionSets));
    const needed = orders.filter((order) => order !== null);
    if (needed.length === 0) return null;
    if (orders.length === 1) return needed[0] ?? null;
    throw UNPREDICTABLE;
  }

  /** Every field that may be selected on `type`, whatever @skip and @include say: the walk knows no variables. */
  function collect(
    type: GraphQLObjectType,
    selectionSet: SelectionSetNode,
    fields: Map<string, { name: string; selectionSets: SelectionSetNode[] }>,
    visited: Set<string>,
    seen: Seen,
  ): void {
    for (const selection of selectionSet.selections) {
      if (selection.directives?.some(({ name }) => name.value === 'skip' || name.value === 'include')) seen.conditional = true;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        // graphql-jit writes objects as literals, where a `__proto__` key sets the prototype instead of a field: the key is lost.
        if (key === '__proto__') throw UNPREDICTABLE;
        let field = fields.get(key);
        if (field === undefined) {
          field = { name: selection.name.value, selectionSets: [] };
          fields.set(key, field);
        } else {
          seen.repeated = true;
        }
        if (selection.selectionSet) field.selectionSets.push(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(type, selection.typeCondition && typeFromAST(schema, selection.typeCondition))) {
          collect(type, selection.selectionSet, fields, visited, seen);
        }
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (visited.has(name)) seen.repeated = true;
        if (visited.has(name) || fragment === undefined) continue;
        visited.add(name);
        if (applies(type, typeFromAST(schema, fragment.typeCondition))) collect(type, fragment.selectionSet, fields, visited, seen);
      }
    }
  }

  function applies(type: GraphQLObjectType, condition: ReturnType<typeof typeFromAST> | undefined): boolean {
    if (condition === undefined) return true;
    if (condition === type) return true;
    return isAbstractType(condition) && schema.isSubType(condition, type);
  }
}

/** What collecting one selection set met: a selection under @skip or @include, a key or fragment selected twice. */
interface Seen {
  conditional: boolean;
  repeated: boolean;
}

type Slots = Record<string, unknown> | unknown[];

/**
 * Rewrites the compiled executor's `parent[slot]` in the order
 * @graphql-tools/executor would have written it (see settleOrderOf): each
 * object whose one possibly asynchronous key did complete asynchronously is
 * rebuilt with that key last, unless it is last already. Returns whether
 * the value completed asynchronously.
 */
export function settle(parent: Slots, slot: string | number, order: SettleOrder): boolean {
  const value = (parent as Record<string | number, unknown>)[slot];
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    let async = false;
    for (let index = 0; index < value.length; index++) if (settle(value, index, order)) async = true;
    return async;
  }
  const object = value as Record<string, unknown>;
  const { key } = order;
  if (!(key in object)) return false;
  const async = (order.below !== null && settle(object, key, order.below)) || order.resolverAsync;
  if (async) (parent as Record<string | number, unknown>)[slot] = withLast(object, key);
  return async;
}

/** A new object, never `delete`, which leaves V8 a slow dictionary object. */
function withLast(object: Record<string, unknown>, last: string): Record<string, unknown> {
  let lastNow: string | undefined;
  for (const key in object) lastNow = key;
  if (lastNow === last) return object;
  const moved: Record<string, unknown> = {};
  for (const key in object) if (key !== last) moved[key] = object[key];
  moved[last] = object[last];
  return moved;
}
