// `npm start` and `npm run lookup-service` run this first: it compiles src/ with `tsc -b` only when something
// tsc reads changed since the last build, so a start after `npm ci` does not pay for loading the compiler.
// Plain JavaScript, run by node itself: tsx or tsc would cost more to load than the check saves.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const BUILD_INFO = 'dist/.tsbuildinfo';
/** What the build reads besides src/: a change to any of them compiles again. */
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The latest change below `path`: a file's, or a folder's, whose time moves when an entry is added, removed or renamed. */
function latestChange(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, latestChange(join(path, name))), stats.mtimeMs);
}

function builtAt() {
  try {
    return statSync(BUILD_INFO).mtimeMs;
  } catch {
    return Number.NEGATIVE_INFINITY;
  }
}

const changed = Math.max(latestChange('src'), ...INPUTS.map((input) => statSync(input).mtimeMs));
if (changed >= builtAt()) {
  // On stderr: what a command prints on stdout (npm run purge's reply) stays its own.
  process.stderr.write('Compiling src/ (changed since the last build)…\n');
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
  process.exit(tsc.status ?? 1);
}
