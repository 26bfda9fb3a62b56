/** Where GraphQL is served; the request handler in front routes by it, Yoga serves it. */
export const GRAPHQL_PATH = '/graphql';
/** Answers 200 while the server runs, without credentials. */
export const HEALTH_PATH = '/health';
/** GraphiQL's files, where it is served: content-hashed names, cached by browsers for ever. */
export const GRAPHIQL_FILES_PATH = '/graphiql/';
