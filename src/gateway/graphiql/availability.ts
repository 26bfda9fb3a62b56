/** What a browser gets at /graphql: GraphiQL, nothing of it, or a refusal saying why it cannot be used here. */
export type GraphiqlAvailability = 'served' | 'off' | 'trusted-documents-only';

/**
 * GraphiQL sends whole queries: where only trusted documents run
 * (ALLOW_ARBITRARY_OPERATIONS=false) it could run nothing, so it is not served
 * there even with GRAPHIQL on.
 */
export function graphiqlAvailability(settings: { graphiql: boolean; allowArbitraryOperations: boolean }): GraphiqlAvailability {
  if (!settings.graphiql) return 'off';
  return settings.allowArbitraryOperations ? 'served' : 'trusted-documents-only';
}
