import type { DocumentNode } from 'graphql';

/**
 * `compute` remembered per document and operation name. Yoga's parse cache
 * hands out the same document object for the same query text, so a plugin's
 * work that depends on the document alone runs once per query, not once per
 * request; documents nobody holds any more are forgotten with them.
 */
export function perOperation<T>(
  compute: (document: DocumentNode, operationName: string | undefined) => T,
): (document: DocumentNode, operationName: string | null | undefined) => T {
  const byDocument = new WeakMap<DocumentNode, Map<string | undefined, T>>();
  return (document, operationName) => {
    const name = operationName ?? undefined;
    let byName = byDocument.get(document);
    if (byName === undefined) {
      byName = new Map();
      byDocument.set(document, byName);
    }
    if (!byName.has(name)) byName.set(name, compute(document, name));
    return byName.get(name) as T;
  };
}
