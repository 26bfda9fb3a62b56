import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node resolves `graphql` 16 to its CommonJS entry (it has no `exports`), Vite
    // to its `.mjs` one; two copies break `instanceof`, so tests use Node's.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Containers, built and run: `npm run test:deploy` (test/deploy/vitest.config.ts).
    exclude: [...configDefaults.exclude, 'test/deploy/**'],
    globalSetup: ['test/support/graphiql-copies.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
