import { describe, expect, it } from 'vitest';
import { defaultDataSet, fixtureCompanies, SearchIndex } from '../../src/lookup-service/index.js';
import type { CompanyResult, PreviousName } from '../../src/lookup-service/index.js';
import { searchIndexFor } from '../../src/lookup-service/search-index.js';

const fullIndex = new SearchIndex(defaultDataSet());
let nextNumber = 1;

function company(name: string, options: { number?: string; jurisdiction?: string; previous?: string[] } = {}): CompanyResult {
  const previousNames: PreviousName[] = (options.previous ?? []).map((previous) => ({
    name: previous,
    startDate: '2001-01-01',
    endDate: '2002-02-02',
  }));
  return {
    ...fixtureCompanies.uniqueName,
    name,
    companyNumber: options.number ?? String(nextNumber++).padStart(8, '9'),
    jurisdiction: options.jurisdiction ?? 'GB',
    previousNames,
  };
}

function names(index: SearchIndex, q: string, jurisdiction = 'GB'): { names: string[]; total: number } {
  const page = index.search({ q, jurisdiction, page: 1, pageSize: 50 });
  return { names: page.results.map((result) => result.name), total: page.total };
}

describe('SearchIndex ranking', () => {
  const index = new SearchIndex([
    company('Widgets by Acme Ltd'),
    company('Abbey Ltd', { previous: ['Old Acme Widgets Ltd'] }),
    company('Acme Widgetsmith Ltd'),
    company('Acme Widgets Ltd'),
    company('Best Acme Widgets Ltd'),
    company('Aaron Ltd', { previous: ['Acme Widgets International Ltd'] }),
    company('Aardvark Ltd', { previous: ['Acme Widgets'] }),
    company('Widgets Acme Ltd', { previous: ['Acme Widgets'] }),
    company('Acme Widgets'),
    company('Acme Gadgets Ltd'),
    company('Acme Wid Ltd'),
    company('Acmewidgets Ltd'),
    company('Acme Widgets', { jurisdiction: 'IE' }),
  ]);

  it('ranks exact name, then name prefix, then all words; a previous name just below a current one of the same kind', () => {
    expect(names(index, 'acme widgets')).toEqual({
      names: [
        'Acme Widgets',
        'Aardvark Ltd',
        'Widgets Acme Ltd', // its previous name's exact match beats its current name's word match
        'Acme Widgets Ltd',
        'Acme Widgetsmith Ltd',
        'Aaron Ltd',
        'Best Acme Widgets Ltd',
        'Widgets by Acme Ltd',
        'Abbey Ltd',
      ],
      total: 9,
    });
  });

  it('lets only the last query word be a prefix', () => {
    expect(names(index, 'acme widg')).toEqual({
      names: [
        'Acme Widgets',
        'Acme Widgets Ltd',
        'Acme Widgetsmith Ltd',
        'Aardvark Ltd',
        'Aaron Ltd',
        'Widgets Acme Ltd',
        'Best Acme Widgets Ltd',
        'Widgets by Acme Ltd',
        'Abbey Ltd',
      ],
      total: 9,
    });
    expect(names(index, 'acm widgets')).toEqual({ names: [], total: 0 });
  });

  it('searches within the jurisdiction only', () => {
    expect(names(index, 'acme widgets', 'IE')).toEqual({ names: ['Acme Widgets'], total: 1 });
    expect(names(index, 'acme widgets', 'FR')).toEqual({ names: [], total: 0 });
  });
});

describe('SearchIndex company numbers', () => {
  const index = new SearchIndex([
    company('Route 00012345 Logistics Ltd', { number: '11111111' }),
    company('Unit 00012345 Ltd', { number: '00012345' }),
    company('Thistle Ltd', { number: 'SC123456' }),
    company('Other Thistle Ltd', { number: 'SC123456', jurisdiction: 'IE' }),
  ]);

  it('puts the exact number match first, counted once though its name matches too', () => {
    expect(names(index, '00012345')).toEqual({ names: ['Unit 00012345 Ltd', 'Route 00012345 Logistics Ltd'], total: 2 });
  });

  it('ignores case and spaces in the number but keeps leading zeros', () => {
    expect(names(index, 'sc123456')).toEqual({ names: ['Thistle Ltd'], total: 1 });
    expect(names(index, ' SC 123 456 ')).toEqual({ names: ['Thistle Ltd'], total: 1 });
    expect(names(index, '0001 2345')).toEqual({ names: ['Unit 00012345 Ltd'], total: 1 });
    expect(names(index, '12345')).toEqual({ names: [], total: 0 });
  });
});

describe('SearchIndex name normalisation', () => {
  const index = new SearchIndex([
    company("O'Reilly & Sons Ltd."),
    company('Éire Óg Teoranta'),
    company('Smith-Jones Ltd'),
    company('A.B.C. Plumbing Limited'),
    company('Global Holdings PLC'),
    company('Brennan & Co'),
  ]);

  it.each([
    ['oreilly and sons limited', "O'Reilly & Sons Ltd."],
    ['O’REILLY & SONS LTD', "O'Reilly & Sons Ltd."],
    ['eire og teo', 'Éire Óg Teoranta'],
    ['ÉIRE ÓG TEORANTA', 'Éire Óg Teoranta'],
    ['smith jones', 'Smith-Jones Ltd'],
    ['a b c plumbing ltd', 'A.B.C. Plumbing Limited'],
    ['global holdings public limited company', 'Global Holdings PLC'],
    ['brennan and company', 'Brennan & Co'],
  ])('finds %j as %j', (q, name) => {
    expect(names(index, q)).toEqual({ names: [name], total: 1 });
  });

  it('treats "Ltd" and "Limited" as the same word, both spellings exact matches', () => {
    const twins = new SearchIndex([
      company('Northgate Lumber Ltd', { number: '2' }),
      company('Northgate Lumber Limited', { number: '1' }),
      company('Northgate Lumber Supplies Ltd'),
    ]);
    for (const q of ['northgate lumber ltd', 'Northgate Lumber Limited', 'northgate lumber ltd.']) {
      expect(names(twins, q)).toEqual({
        names: ['Northgate Lumber Limited', 'Northgate Lumber Ltd', 'Northgate Lumber Supplies Ltd'],
        total: 3,
      });
    }
  });

  it('keeps words apart that only an apostrophe joins', () => {
    expect(names(index, 'o reilly').total).toBe(0);
  });

  it('matches nothing for a query without letters or digits', () => {
    expect(names(index, '!!! ---')).toEqual({ names: [], total: 0 });
  });
});

describe('SearchIndex ties and pages', () => {
  it('orders ties by name, then company number, whatever the input order', () => {
    const companies = [
      company('Twin Ltd', { number: '2' }),
      company('TWIN LTD', { number: '3' }),
      company('Twin Ltd', { number: '1', jurisdiction: 'GB' }),
      company('Twin Ltd', { number: '1', jurisdiction: 'IE' }),
    ];
    const expected = { names: ['TWIN LTD', 'Twin Ltd', 'Twin Ltd'], total: 3 };
    expect(names(new SearchIndex(companies), 'twin ltd')).toEqual(expected);
    expect(names(new SearchIndex([...companies].reverse()), 'twin ltd')).toEqual(expected);
    const numbers = new SearchIndex(companies)
      .search({ q: 'twin', jurisdiction: 'GB', page: 1, pageSize: 10 })
      .results.map((result) => result.companyNumber);
    expect(numbers).toEqual(['3', '1', '2']);
  });

  it('counts the total before cutting the page, and pages through all matches in order', () => {
    const all = fullIndex.search({ q: 'holdings', jurisdiction: 'GB', page: 1, pageSize: 50 });
    const holdings = fullIndex.search({ q: 'holdings', jurisdiction: 'GB', page: 1, pageSize: 1 });
    expect(all.total).toBe(holdings.total);
    expect(all.total).toBeGreaterThan(100);
    expect(all.results).toHaveLength(50);
    const second = fullIndex.search({ q: 'holdings', jurisdiction: 'GB', page: 2, pageSize: 10 });
    expect(second).toEqual({ results: all.results.slice(10, 20), total: all.total });
    const lastPage = Math.ceil(all.total / 50);
    expect(fullIndex.search({ q: 'holdings', jurisdiction: 'GB', page: lastPage, pageSize: 50 }).results).toHaveLength(
      all.total - (lastPage - 1) * 50,
    );
    expect(fullIndex.search({ q: 'holdings', jurisdiction: 'GB', page: lastPage + 1, pageSize: 50 })).toEqual({
      results: [],
      total: all.total,
    });
  });

  it('finds common words hundreds or thousands of times', () => {
    expect(fullIndex.search({ q: 'ltd', jurisdiction: 'GB', page: 1, pageSize: 1 }).total).toBeGreaterThan(5_000);
    expect(fullIndex.search({ q: 'holdings', jurisdiction: 'IE', page: 1, pageSize: 1 }).total).toBeGreaterThan(100);
  });
});

describe('searchIndexFor', () => {
  it('builds one index per companies array, so services over the same data share the start-up work', () => {
    const companies = [company('Shared Ltd')];
    const shared = searchIndexFor(companies);
    expect(searchIndexFor(companies)).toBe(shared);
    expect(searchIndexFor([...companies])).not.toBe(shared);
    expect(names(shared, 'shared')).toEqual({ names: ['Shared Ltd'], total: 1 });
  });
});

describe('SearchIndex input checks', () => {
  it('refuses two companies with the same number in one jurisdiction', () => {
    expect(() => new SearchIndex([company('A Ltd', { number: '1' }), company('B Ltd', { number: '1' })])).toThrow(
      'companies[1] repeats the jurisdiction and company number GB 1',
    );
    expect(() => new SearchIndex([company('A Ltd', { number: '1' }), company('B Ltd', { number: '1', jurisdiction: 'IE' })])).not.toThrow();
  });

  it('names the field of a malformed company', () => {
    const malformed = { ...company('A Ltd'), name: 42 } as unknown as CompanyResult;
    expect(() => new SearchIndex([company('B Ltd'), malformed])).toThrow('companies[1].name must be a string');
  });
});
