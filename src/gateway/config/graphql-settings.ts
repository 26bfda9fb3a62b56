import { readTrustedDocuments, type TrustedDocuments } from '../graphql/trusted-documents.js';
import type { EnvReader } from './env-reader.js';

/** What Yoga serves besides operations (GraphiQL, introspection) and which operations it runs. */
export interface GraphqlSettings {
  graphiql: boolean;
  introspection: boolean;
  trustedDocuments: TrustedDocuments | undefined;
  allowArbitraryOperations: boolean;
}

/** Production turns GraphiQL and introspection off unless they are asked for. */
export function readGraphqlSettings(reader: EnvReader, production: boolean): GraphqlSettings {
  const trustedDocuments = readManifest(reader);
  const allowArbitraryOperations = reader.boolean('ALLOW_ARBITRARY_OPERATIONS', trustedDocuments === undefined);
  if (!allowArbitraryOperations && !reader.given('TRUSTED_DOCUMENTS')) {
    reader.problem('ALLOW_ARBITRARY_OPERATIONS=false needs TRUSTED_DOCUMENTS, the manifest of the operations to allow');
  }
  return {
    graphiql: reader.boolean('GRAPHIQL', !production),
    introspection: reader.boolean('INTROSPECTION', !production),
    trustedDocuments,
    allowArbitraryOperations,
  };
}

function readManifest(reader: EnvReader): TrustedDocuments | undefined {
  const path = reader.string('TRUSTED_DOCUMENTS');
  if (path === undefined) return undefined;
  try {
    return readTrustedDocuments(path);
  } catch (error) {
    reader.refuse('TRUSTED_DOCUMENTS', `TRUSTED_DOCUMENTS: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
