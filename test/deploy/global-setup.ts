import type { TestProject } from 'vitest/node';
import { IMAGE, ROOT, run } from './support/containers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The commit the image was built from, as its revision label should say. */
    revision: string;
  }
}

/**
 * Before the deploy tests: the base images where none can be pulled (made once per machine and kept), then the
 * gateway's image from this checkout, as CI and an operator build it. `npm run test:deploy` has installed podman.
 */
export default async function setup(project: TestProject): Promise<void> {
  const started = Date.now();
  project.provide('revision', (await run('git', ['-C', ROOT, 'rev-parse', 'HEAD'])).stdout.trim());
  await run('sh', [`${ROOT}scripts/deploy/base-images.sh`]);
  const based = Date.now();
  await run('sh', [`${ROOT}scripts/deploy/build-image.sh`], { env: { ...process.env, IMAGE } });
  process.stdout.write(
    `Base images ready in ${Math.round((based - started) / 1000)} s, ${IMAGE} built in ${Math.round((Date.now() - based) / 1000)} s\n`,
  );
}
