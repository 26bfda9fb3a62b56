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
