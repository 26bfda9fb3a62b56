import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from '../../src/gateway/heap-growth.js';

/** What limitHeapGrowth asks V8 for, given node's flags. */
function flagsSet(execArgv: string[]): string[] {
  const set: string[] = [];
  limitHeapGrowth({ execArgv, setFlags: (flags) => set.push(flags) });
  return set;
}

describe('limitHeapGrowth', () => {
  it("sets V8's heap growing factor when node was started without one", () => {
    expect(flagsSet(['--enable-source-maps'])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it("leaves an operator's factor from node's command line in place, in either spelling", () => {
    expect(flagsSet(['--enable-source-maps', '--heap-growing-percent=100'])).toEqual([]);
    expect(flagsSet(['--heap_growing_percent', '100'])).toEqual([]);
  });

  it('does not take a flag that only begins like it for the factor', () => {
    expect(flagsSet(['--heap-growing-percentage=5'])).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });
});
