import {
  getArgumentValues,
  getDirectiveValues,
  getOperationAST,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLSchema,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { SearchBudgetExceededError } from '../../errors/request-errors.js';
import { perOperation } from './per-operation.js';

/** The Query fields that each cost an upstream search. */
export const UPSTREAM_SEARCH_FIELDS = ['searchCompanies', 'company', 'node'];

export interface UpstreamSearchBudgetOptions {
  maxSearches: number;
}

/**
 * Refuses, before anything runs, an operation that would start more than
 * `maxSearches` distinct upstream searches. Fields in UPSTREAM_SEARCH_FIELDS
 * count once per distinct set of argument values, with variables (and their
 * defaults) applied and fields skipped by @skip/@include left out. It runs at
 * execution rather than validation because Yoga caches validation by document
 * alone, and the count depends on the variables.
 */
export function useUpstreamSearchBudget({ maxSearches }: UpstreamSearchBudgetOptions): Plugin {
  if (!Number.isInteger(maxSearches) || maxSearches < 1) {
    throw new RangeError(`maxSearches must be a whole number of at least 1, got ${maxSearches}`);
  }
  let searchFieldCount: ReturnType<typeof perOperation<number>> | undefined;
  return {
    onSchemaChange({ schema }) {
      searchFieldCount = perOperation((document, operationName) => countSearchFields(schema, document, operationName));
    },
    onExecute({ args }) {
      // Each search field in the document starts at most one search, so an operation with no more of them than allowed needs no count.
      if ((searchFieldCount?.(args.document, args.operationName) ?? Number.POSITIVE_INFINITY) <= maxSearches) return;
      const searches = countUpstreamSearches(args.schema, args.document, args.operationName, args.variableValues);
      if (searches > maxSearches) throw new SearchBudgetExceededError(searches, maxSearches);
    },
  };
}

/** The search fields written in the operation and the fragments it reaches, whatever @skip and @include say. */
function countSearchFields(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): number {
  let count = 0;
  visitSearchFields(
    schema,
    document,
    operationName,
    () => true,
    () => (count += 1),
  );
  return count;
}

/** Distinct upstream searches the operation would start; 0 when it cannot run anyway (execution reports why). */
function countUpstreamSearches(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Readonly<Record<string, unknown>> | null | undefined,
): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  if (coerced.errors) return 0;
  const variables = coerced.coerced;
  const searches = new Set<string>();
  const included = (node: SelectionNode) =>
    getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true &&
    getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
  visitSearchFields(schema, document, operationName, included, (field, node) => {
    const args = argumentValues(field, node, variables);
    // Arguments that cannot be read fail the field before it calls upstream.
    // getArgumentValues builds its object in the schema's argument order, so argument order in the query changes no key.
    if (args !== undefined) searches.add(`${field.name}${JSON.stringify(args)}`);
  });
  return searches.size;
}

/**
 * Calls `onSearchField` for each UPSTREAM_SEARCH_FIELDS field of a query
 * operation that `included` lets through, fragments followed. A fragment is
 * followed once, however often it is spread: another visit would meet the
 * same fields with the same arguments, which make no new distinct search, and
 * following every spread costs 2^n for fragments that each spread the next
 * twice, n deep.
 */
function visitSearchFields(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  included: (node: SelectionNode) => boolean,
  onSearchField: (field: GraphQLField<unknown, unknown>, node: FieldNode) => void,
): void {
  const operation = getOperationAST(document, operationName);
  const queryType = schema.getQueryType();
  if (operation?.operation !== 'query' || !queryType) return;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  // Only spreads that `included` lets through mark a fragment followed: one left out here may be spread elsewhere.
  const followed = new Set<string>();
  const visit = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const field = queryType.getFields()[selection.name.value];
        if (field && UPSTREAM_SEARCH_FIELDS.includes(field.name)) onSearchField(field, selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (fragment && !followed.has(name)) {
          followed.add(name);
          visit(fragment.selectionSet);
        }
      }
    }
  };
  visit(operation.selectionSet);
}

function argumentValues(...args: Parameters<typeof getArgumentValues>): Record<string, unknown> | undefined {
  try {
    return getArgumentValues(...args);
  } catch {
    return undefined;
  }
}
