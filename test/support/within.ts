import { vi } from 'vitest';

/**
 * How long a test waits for an event before it fails naming it: a safety bound against a hang, far beyond what any
 * event takes on a loaded machine, never a measure of how quick something is (that belongs in `npm run bench`).
 */
export const SAFETY_MS = 30_000;

/**
 * The same for a process of its own starting under tsx, which compiles every module it loads: a few seconds on a
 * quiet machine, many times that with both cores busy.
 */
export const PROCESS_START_MS = 180_000;

/** `promise`, or a rejection naming `what` if it takes longer than `ms`: a safety bound, far beyond what is expected. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until `check` passes (vi.waitFor, looking every `intervalMs`), failing only past SAFETY_MS. */
export function eventually<T>(check: () => T | Promise<T>, intervalMs = 5): Promise<T> {
  return vi.waitFor(check, { timeout: SAFETY_MS, interval: intervalMs });
}
