/** Longest input remembered: a status or a country is a few words. */
const LONGEST_REMEMBERED_INPUT = 64;

/**
 * `compute` remembered for up to `maxEntries` distinct inputs of at most 64
 * characters; others are only computed. For functions of upstream values that
 * repeat on nearly every result (a status, a country), where an upstream
 * sending endless distinct or long values must not grow memory.
 */
export function boundedMemo<T>(compute: (input: string) => T, maxEntries: number): (input: string) => T {
  const known = new Map<string, T>();
  return (input) => {
    const found = known.get(input);
    if (found !== undefined || known.has(input)) return found as T;
    const value = compute(input);
    if (known.size < maxEntries && input.length <= LONGEST_REMEMBERED_INPUT) known.set(input, value);
    return value;
  };
}
