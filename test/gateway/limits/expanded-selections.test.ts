import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { expandedSelections } from '../../../src/gateway/limits/expanded-selections.js';
import { fragmentDiamond } from '../../support/fragment-diamond.js';

const count = (document: string) => expandedSelections(parse(document, { maxTokens: 1e7 }));

describe('expandedSelections', () => {
  it('counts fields, inline fragments and spreads, each fragment wherever it is spread', () => {
    expect(count('{ a b { c } ... on Query { d } }')).toBe(5);
    // The spread of F; in F, x and two spreads of G; G's y once for each.
    expect(count('{ ...F } fragment F on Query { x ...G ...G } fragment G on Query { y }')).toBe(1 + (1 + 2 + 2 * 1));
    // The spread of F0; each F0…F2 holds two spreads and twice the next; F3 holds searchCompanies and totalCount.
    expect(count(fragmentDiamond(3))).toBe(1 + (2 + 2 * (2 + 2 * (2 + 2 * 2))));
  });

  it('counts every operation, and fragments that no operation spreads', () => {
    expect(count('query A { a } query B { b c } fragment Unused on Query { x y z }')).toBe(6);
    expect(count('{ ...A } fragment A on Query { a } fragment A on Query { b c }')).toBe(1 + 2 + 1);
  });

  it('ends on fragment cycles, counting the spread that closes one and nothing more', () => {
    expect(count('{ ...A } fragment A on Query { a ...B } fragment B on Query { b ...A }')).toBe(1 + (2 + 2));
    expect(count('{ ...A } fragment A on Query { ...A ...A }')).toBe(3);
  });

  it('is linear: a 1000-level diamond is counted in one pass, the count held at Number.MAX_SAFE_INTEGER', () => {
    expect(count(fragmentDiamond(1_000))).toBe(Number.MAX_SAFE_INTEGER);
    expect(count(fragmentDiamond(40))).toBe(2 ** 42 - 1);
  });

  it('follows a chain of 50,000 fragments without running out of stack', () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => `fragment C${i} on Query { ...C${i + 1} }`).join(' ');
    expect(count(`{ ...C0 } ${chain} fragment C50000 on Query { a }`)).toBe(50_002);
  });
});
