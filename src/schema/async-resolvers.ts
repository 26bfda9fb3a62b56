/**
 * The fields, as `Type.field`, whose resolvers return a promise: the upstream
 * calls behind the root fields, and Pothos's global ID, whose resolver is an
 * async function. @graphql-tools/executor writes such a field after its
 * object's synchronous ones, so a compiled executor that keeps document order
 * must know them to answer byte for byte the same
 * (gateway/graphql/compiled-execution/). test/schema/async-resolvers.test.ts
 * watches every resolver of the schema to hold this list to it.
 */
export const ASYNC_RESOLVERS: ReadonlySet<string> = new Set(['Query.searchCompanies', 'Query.company', 'Query.node', 'Company.id']);
