import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full
 * collection before it starts the next one: to (1 + HEAP_GROWING_PERCENT/100)
 * times. V8's own factor lets it reach two to four times. The caches hold
 * their entries as bytes outside the heap, so what the heap holds live is
 * small; what made the process large was garbage waiting for the next full
 * collection, with the Buffers it still pointed to. A smaller factor keeps
 * RSS near what is held, for more full collections of that small heap
 * (docs/performance.md, "Heap growth", has the paired measurement).
 */
export const HEAP_GROWING_PERCENT = 60;

const GIVEN_ON_COMMAND_LINE = /^--heap[-_]growing[-_]percent(=|$)/;

export interface HeapGrowthOptions {
  /** node's own flags, where an operator may have set the factor (NODE_OPTIONS cannot carry it). */
  execArgv?: readonly string[];
  /** V8's flag setter. */
  setFlags?: (flags: string) => void;
}

/**
 * Sets V8's heap growing factor for this process, unless node was started
 * with its own. V8 reads it at each full collection, so setting it at start
 * takes effect.
 */
export function limitHeapGrowth({ execArgv = process.execArgv, setFlags = setFlagsFromString }: HeapGrowthOptions = {}): void {
  if (execArgv.some((arg) => GIVEN_ON_COMMAND_LINE.test(arg))) return;
  setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
