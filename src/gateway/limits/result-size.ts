import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** How long each list field of the schema can be, given the page size of the connection it is in (undefined outside one). */
export type ListBound = (typeName: string, fieldName: string, pageSize: number | undefined) => number;

/** The page size a connection field asks for, from its node (arguments, variables applied); undefined for any other field. */
export type PageSizeOf = (field: FieldNode, typeName: string) => number | undefined;

/**
 * How many fields the answer to `operation` can hold at most: every field
 * selected counts once, and the selection under a list counts once per entry
 * the list can have (`listBound`), so 15 aliases of a page of 50 companies
 * count 15 × 50 times the fields of a company. It bounds the answer's size
 * and the work of building it before any resolver runs.
 *
 * An upper bound: @skip and @include are not read, and fields that merge into
 * one answer key count each time they are written. Introspection fields
 * (`__schema`, `__type`) count once, without their selections: their answer
 * is bounded by the schema, and is off in production.
 *
 * Linear in the document: a fragment's size is computed once per page size it
 * is spread under (a fragment spread in a page of 20 and one of 50 costs
 * differently), however often it is spread.
 */
export function resultSize(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  listBound: ListBound,
  pageSizeOf: PageSizeOf,
): number {
  const root = operation.operation === 'query' ? schema.getQueryType() : undefined;
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const sized = new Map<string, number>();
  const sizing = new Set<string>();

  const sizeOf = (selectionSet: SelectionSetNode, parent: GraphQLNamedType, pageSize: number | undefined): number => {
    let size = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        size += fieldSize(selection, parent, pageSize);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        size += sizeOf(selection.selectionSet, type ?? parent, pageSize);
      } else {
        size += fragmentSize(selection.name.value, pageSize);
      }
    }
    return capped(size);
  };

  const fieldSize = (node: FieldNode, parent: GraphQLNamedType, pageSize: number | undefined): number => {
    const name = node.name.value;
    if (node.selectionSet === undefined || name.startsWith('__')) return 1;
    const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
    // Validation has refused any field the schema does not have; nothing below it is answered.
    if (!field) return 1;
    const ownPageSize = pageSizeOf(node, parent.name) ?? pageSize;
    const entries = isListType(getNullableType(field.type)) ? listBound(parent.name, name, ownPageSize) : 1;
    return capped(1 + entries * sizeOf(node.selectionSet, getNamedType(field.type), ownPageSize));
  };

  const fragmentSize = (name: string, pageSize: number | undefined): number => {
    const key = `${name}\u0000${pageSize ?? ''}`;
    const known = sized.get(key);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    const type = fragment ? schema.getType(fragment.typeCondition.name.value) : undefined;
    // A cycle adds nothing (validation refuses cycles anyway).
    if (!fragment || !type || sizing.has(key)) return 0;
    sizing.add(key);
    const size = sizeOf(fragment.selectionSet, type, pageSize);
    sizing.delete(key);
    sized.set(key, size);
    return size;
  };

  return sizeOf(operation.selectionSet, root, undefined);
}

function capped(size: number): number {
  return Math.min(size, Number.MAX_SAFE_INTEGER);
}
