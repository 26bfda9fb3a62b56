import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This checkout's root: the one whose gateway the benchmark measures unless told another. */
export const THIS_CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));

/** The whole number `raw` holds, from `min` to `max`, or `fallback` where it is absent; throws a message naming `--name`. */
export function wholeNumberOption(name: string, raw: string | boolean | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** What `read` makes of this process's arguments; undefined once its message and `usage` are on stderr (exit 2). */
export function readCommandLine<Options>(read: (args: string[]) => Options, usage: string): Options | undefined {
  try {
    return read(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage}\n`);
    return undefined;
  }
}

/** `raw` as a checkout of the gateway with its dependencies installed, to run its gateway beside this one's; throws a message naming `--name`. */
export function checkoutOption(name: string, raw: string): string {
  // npm runs scripts from the package's root; a relative path means one from where `npm run` was typed.
  const checkout = resolve(process.env.INIT_CWD ?? process.cwd(), raw);
  if (!existsSync(join(checkout, 'src', 'gateway', 'server.ts')) || !existsSync(join(checkout, 'tsconfig.build.json'))) {
    throw new Error(`--${name} ${checkout} is not a checkout of this gateway (src/gateway/server.ts, tsconfig.build.json)`);
  }
  if (!existsSync(join(checkout, 'node_modules'))) throw new Error(`--${name} ${checkout} has no node_modules: run npm ci there first`);
  return checkout;
}
