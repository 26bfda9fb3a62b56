/** An answer kept by the app, with the validator the gateway gave it. */
interface Kept {
  etag: string;
  body: unknown;
}

/**
 * GETs a query (here a trusted document by its id), keeping each answer with its ETag: once the answer's max-age has
 * run out, the app asks again with If-None-Match, and a 304 (no body) says its copy is still the current one.
 */
export async function revalidatingGet(
  url: string,
  documentId: string,
  variables: object,
  kept: Map<string, Kept>,
): Promise<{ status: number; body: unknown }> {
  const target = `${url}?documentId=${encodeURIComponent(documentId)}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
  const copy = kept.get(target);
  const response = await fetch(target, {
    headers: { accept: 'application/graphql-response+json', ...(copy && { 'if-none-match': copy.etag }) },
  });
  if (response.status === 304 && copy) return { status: 304, body: copy.body };
  const body: unknown = await response.json();
  const etag = response.headers.get('etag');
  // Answers with errors or warnings are no-store, and carry no ETag: nothing is kept.
  if (etag !== null) kept.set(target, { etag, body });
  return { status: response.status, body };
}
