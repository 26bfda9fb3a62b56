import { describe, expect, it } from 'vitest';
import { boundedMemo } from '../../src/schema/bounded-memo.js';

/** A memo of `String.length` that counts how often it computes. */
function countingMemo(maxEntries: number) {
  const computed: string[] = [];
  const memo = boundedMemo((input) => {
    computed.push(input);
    return input.length;
  }, maxEntries);
  return { memo, computed };
}

describe('boundedMemo', () => {
  it('computes a repeated input once', () => {
    const { memo, computed } = countingMemo(4);
    expect([memo('GB'), memo('GB'), memo('IE'), memo('GB')]).toEqual([2, 2, 2, 2]);
    expect(computed).toEqual(['GB', 'IE']);
  });

  it('remembers no more than its entries: past them, new inputs are computed every time', () => {
    const { memo, computed } = countingMemo(2);
    for (const input of ['a', 'b', 'c', 'c', 'a']) memo(input);
    expect(computed).toEqual(['a', 'b', 'c', 'c']);
  });

  it('never remembers a long input', () => {
    const { memo, computed } = countingMemo(10);
    const long = 'x'.repeat(65);
    expect([memo(long), memo(long), memo('x'.repeat(64)), memo('x'.repeat(64))]).toEqual([65, 65, 64, 64]);
    expect(computed).toEqual([long, long, 'x'.repeat(64)]);
  });
});
