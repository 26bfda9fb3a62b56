import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Turns the example operations into typed documents for the tests. CI runs it
 * and fails when test/generated/ differs from what is committed.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/operations/*.graphql', 'src/gateway/graphiql/graphiql-example.ts'],
  generates: {
    'test/generated/': {
      preset: 'client',
      // persistedDocuments also writes persisted-documents.json: SHA-256 id -> document, the manifest TRUSTED_DOCUMENTS reads.
      presetConfig: { fragmentMasking: false, persistedDocuments: true },
      config: {
        useTypeImports: true,
        emitLegacyCommonJSImports: false,
        enumsAsTypes: true,
        scalars: {
          CountryCode: 'string',
          Date: 'string',
          DateTime: 'string',
          URL: 'string',
        },
      },
    },
  },
};

export default config;
