import { precompressGraphiql } from './precompress.js';

/** `npm run build`, after tsc: GraphiQL compressed once, so that no start spends CPU on it. */
precompressGraphiql(undefined, (line) => process.stdout.write(`${line}\n`)).then(
  (summary) => process.stdout.write(`${summary}\n`),
  (error: unknown) => {
    process.stderr.write(`Compressing GraphiQL failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
