import { writeSync } from 'node:fs';

// Runs on the module hooks' thread; a synchronous write to fd 2 lands in the process's stderr all the same.
export async function load(url, context, nextLoad) {
  writeSync(2, `module ${url}\n`);
  return nextLoad(url, context);
}
