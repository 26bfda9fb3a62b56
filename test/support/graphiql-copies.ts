import { precompressGraphiql } from '../../src/gateway/graphiql/precompress.js';

/**
 * Vitest's global setup: GraphiQL's compressed copies, as `npm run build`
 * makes them, so that no gateway a test starts compresses in the background.
 * Once made, they are only read.
 */
export default async function setup(): Promise<void> {
  await precompressGraphiql();
}
