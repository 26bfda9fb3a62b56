import { type DocumentNode, getOperationAST, type OperationDefinitionNode } from 'graphql';

/**
 * `compute` remembered per operation of a document. Yoga's parse cache hands
 * out the same document object for the same query text, so a plugin's work
 * that depends on the document alone runs once per query, not once per
 * request; documents nobody holds any more are forgotten with them. An
 * operation name the document does not define (which the request fails on
 * anyway) is computed each time and not remembered: names a client makes up
 * have no bound, the operations of a document do.
 */
export function perOperation<T>(
  compute: (document: DocumentNode, operationName: string | undefined) => T,
): (document: DocumentNode, operationName: string | null | undefined) => T {
  const byOperation = new WeakMap<OperationDefinitionNode, T>();
  return (document, operationName) => {
    const name = operationName ?? undefined;
    const operation = getOperationAST(document, name);
    if (!operation) return compute(document, name);
    if (!byOperation.has(operation)) byOperation.set(operation, compute(document, name));
    return byOperation.get(operation) as T;
  };
}
