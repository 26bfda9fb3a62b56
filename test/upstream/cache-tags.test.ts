import { describe, expect, it } from 'vitest';
import { companyKey, companyTag, dataTags, tagMatcher } from '../../src/upstream/cache-tags.js';
import { normalizeSearchQuery } from '../../src/upstream/search-query.js';

describe('cache tags', () => {
  // Most numbers are printable ASCII without a space and skip the normalization; the others must not.
  it('keys a company number trimmed, its inner whitespace collapsed and upper-cased, plain or not', () => {
    expect(companyKey('sc012345')).toBe('SC012345');
    expect(companyKey(' \tsc 01\u00a0\n2345 ')).toBe('SC 01 2345');
    expect(companyKey('ab\ud800')).toBe('AB\uFFFD');
  });

  // JSON carries a lone surrogate (`"\ud800"`) where UTF-8 cannot: the upstream may send one in a company number,
  // a client in its search terms.
  it('tags a company whose number holds a lone surrogate as UTF-8 writes it, and match it', () => {
    const tags = dataTags(normalizeSearchQuery('acme', 'GB'), [{ jurisdiction: 'GB', companyNumber: 'ab\ud800' }]);
    const tag = companyTag('GB', 'AB\uFFFD');
    expect(tags.has(tag)).toBe(true);
    expect(tag).toBe('csg:c:GB:AB%EF%BF%BD');
    const holds = (number: string) =>
      tagMatcher(tag)!.holds(normalizeSearchQuery('acme', 'GB'), { holdsCompany: (_, held) => held === number });
    expect(holds('AB\uFFFD')).toBe(true);
  });

  it('tags a search for a company number holding a lone surrogate, as normalized', () => {
    const query = normalizeSearchQuery(' ab\ud800 ', 'gb');
    expect(query).toEqual({ q: 'ab\uFFFD', jurisdiction: 'GB' });
    expect(dataTags(query, []).has(companyTag('GB', 'AB\uFFFD'))).toBe(true);
  });
});
