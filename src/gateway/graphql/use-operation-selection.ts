import { Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { BadRequestError } from '../../errors/request-errors.js';

/** Longest piece of a client's input repeated in a message. */
const ECHO_LIMIT = 100;

/**
 * Says precisely why no operation can be picked from a document, where Yoga
 * would only say "Could not determine what operation to execute." (an empty
 * `operationName` is taken for none, as here), and
 * refuses an operation type the schema does not have (Yoga would answer 200)
 * with 400 before execution. GET mutations are left to Yoga, which answers 405.
 */
export function useOperationSelection(): Plugin {
  let schema: GraphQLSchema | undefined;
  return {
    onSchemaChange({ schema: current }) {
      schema = current;
    },
    onParams({ params, setParams }) {
      if (params.operationName != null && typeof params.operationName !== 'string') {
        throw new BadRequestError(
          `"operationName" must be a string, got ${Array.isArray(params.operationName) ? 'an array' : typeof params.operationName}`,
        );
      }
      // Picked below as no name at all; Yoga and the executor, given "", look for an operation of that name and find none.
      if (params.operationName === '') setParams({ ...params, operationName: undefined });
    },
    onParse() {
      return ({ result, context }) => {
        const { request, params } = context as { request?: Request; params?: { operationName?: string | null } };
        if (!request || result instanceof Error || !(result as DocumentNode | null)?.definitions) return;
        const operation = selectOperation(result as DocumentNode, params?.operationName ?? undefined);
        checkSupported(operation, schema, request.method);
      };
    },
  };
}

function selectOperation(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (operations.length === 0) {
    throw new BadRequestError('The document holds no operation to execute; send a query such as "{ searchCompanies(…) { … } }"');
  }
  if (operationName === undefined || operationName === '') {
    if (operations.length === 1) return operations[0]!;
    throw new BadRequestError(`The document holds ${operations.length} operations; say which to execute in "operationName"`);
  }
  const named = operations.filter((operation) => operation.name?.value === operationName);
  if (named.length === 1) return named[0]!;
  if (named.length > 1)
    throw new BadRequestError(`The document holds more than one operation named ${echo(operationName)}; give each its own name`);
  const names = operations.map((operation) => operation.name?.value).filter((name) => name !== undefined);
  throw new BadRequestError(
    `The document holds no operation named ${echo(operationName)}${names.length > 0 ? `; it has ${names.map(echo).join(', ')}` : ''}`,
  );
}

function checkSupported(operation: OperationDefinitionNode, schema: GraphQLSchema | undefined, method: string): void {
  if (operation.operation === 'query' || !schema) return;
  // A mutation over GET gets Yoga's 405 whether or not the schema has mutations.
  if (operation.operation === 'mutation' && method === 'GET') return;
  const rootType = operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!rootType) throw new BadRequestError(`This gateway has no ${operation.operation}s; only queries are executed`);
}

function echo(value: string): string {
  return JSON.stringify(value.length > ECHO_LIMIT ? `${value.slice(0, ECHO_LIMIT)}…` : value);
}
