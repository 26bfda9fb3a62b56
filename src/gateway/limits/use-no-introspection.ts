import {
  getNamedType,
  getOperationAST,
  isIntrospectionType,
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { IntrospectionDisabledError } from '../../errors/request-errors.js';
import { perOperation } from './per-operation.js';

/** The introspection field a client may still ask, on the query type, for an answer of null. */
const TYPE_LOOKUP = '__type';

/**
 * Turns introspection off. Every field returning an introspection type
 * (`__schema` and what is under it) is refused in validation, as graphql-js's
 * NoSchemaIntrospectionCustomRule does, except `__type(name:)` on the query
 * type: that answers null for every name, as if no such type existed. It
 * tells nothing about the schema, and a client asking it as a harmless probe
 * (the GraphQL-over-HTTP audits do, with variables) still gets an answer
 * without errors. `__typename` stays allowed, clients need it.
 */
export function useNoIntrospection(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(noIntrospectionButTypeLookups);
    },
    onExecute({ args }) {
      const keys = typeLookupKeys(args.document, args.operationName);
      if (keys.size === 0) return undefined;
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result) || !result.data) return;
          setResult({
            ...result,
            data: Object.fromEntries(Object.entries(result.data).map(([key, value]) => [key, keys.has(key) ? null : value])),
          });
        },
      };
    },
  };
}

function noIntrospectionButTypeLookups(context: ValidationContext): ASTVisitor {
  let lookup: FieldNode | undefined;
  return {
    Field: {
      enter(node) {
        if (lookup) return;
        if (node.name.value === TYPE_LOOKUP && context.getParentType() === context.getSchema().getQueryType()) {
          lookup = node;
          return;
        }
        const type = context.getType();
        if (type && isIntrospectionType(getNamedType(type))) {
          context.reportError(new IntrospectionDisabledError(node.name.value, node));
        }
      },
      leave(node) {
        if (node === lookup) lookup = undefined;
      },
    },
  };
}

/** The response keys of the operation's `__type` fields, fragments followed. */
const typeLookupKeys = perOperation((document: DocumentNode, operationName: string | undefined): ReadonlySet<string> => {
  const keys = new Set<string>();
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'query') return keys;
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  const followed = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === TYPE_LOOKUP) keys.add(selection.alias?.value ?? TYPE_LOOKUP);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !followed.has(fragment.name.value)) {
          followed.add(fragment.name.value);
          collect(fragment.selectionSet);
        }
      }
    }
  };
  collect(operation.selectionSet);
  return keys;
});
