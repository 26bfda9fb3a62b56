import { describe, expect, it } from 'vitest';
import { GraphQLError } from 'graphql';
import { jsonBytesWithin } from '../../../src/gateway/limits/answer-bytes.js';

const exactly = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('jsonBytesWithin', () => {
  it('counts the bytes JSON.stringify writes, in UTF-8, escapes and all', () => {
    const values: unknown[] = [
      null,
      true,
      false,
      0,
      -1.5e-7,
      2 ** 31 - 1,
      '',
      'plain ASCII',
      'quote " backslash \\ slash /',
      'controls \n\r\t\b\f \u0000 \u001f',
      'Bláth na Mara Teoranta — Œuvre ✓',
      'a pair 😀 and lone halves \ud800 x \udc00',
      [],
      [1, 'two', null, [3]],
      { a: 1, b: undefined, c: [undefined, null], 'key "quoted"': 'ü' },
      {
        data: { a0: { nodes: [{ name: 'Acme Ltd', id: 'Q29tcGFueTpHQjowMQ==' }] } },
        errors: [new GraphQLError('bad', { extensions: { code: 'X' } })],
      },
    ];
    for (const value of values) expect(jsonBytesWithin(value, Number.MAX_SAFE_INTEGER), JSON.stringify(value)).toBe(exactly(value));
  });

  it('stops counting once past its limit, without looking at the rest', () => {
    const rest = {
      get untouched(): string {
        throw new Error('counted past the limit');
      },
    };
    const value = { first: 'x'.repeat(100), rest };
    const bytes = jsonBytesWithin(value, 50);
    expect(bytes).toBeGreaterThan(50);
    expect(bytes).toBeLessThanOrEqual(exactly({ first: 'x'.repeat(100) }));
  });

  it('answers the exact count when it is within the limit, and more than the limit only when the value is larger', () => {
    const value = { names: Array.from({ length: 50 }, (_, i) => `Company ${i} Ltd`) };
    const size = exactly(value);
    expect(jsonBytesWithin(value, size)).toBe(size);
    expect(jsonBytesWithin(value, size - 1)).toBeGreaterThan(size - 1);
  });
});
