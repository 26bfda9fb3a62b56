/** Where GraphQL is served; the request handler in front routes by it, Yoga serves it. */
export const GRAPHQL_PATH = '/graphql';
/** Answers 200 while the server runs, without credentials. */
export const HEALTH_PATH = '/health';
/** Answers 200 while the gateway takes traffic and 503 once it drains, without credentials (see observability/readiness.ts). */
export const READY_PATH = '/ready';
/** GraphiQL's files, where it is served: content-hashed names, cached by browsers for ever. */
export const GRAPHIQL_FILES_PATH = '/graphiql/';

/** A request target's path, without its query: a slice, not split()'s array, as it is cut on every request. */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}
