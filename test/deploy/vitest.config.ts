import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

/**
 * `npm run test:deploy`: the image, the compose fleet and the Kubernetes manifests, run for real with podman. Slow
 * (images are built, containers started), so kept out of `npm test`; CI runs both. One file at a time: each starts
 * containers of its own, and the machine has two cores.
 */
export default defineConfig({
  ...base,
  test: {
    include: ['test/deploy/**/*.test.ts'],
    globalSetup: ['test/deploy/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
