import type { CompanyResult } from './company.js';
import { JurisdictionIndex } from './jurisdiction-index.js';
import type { SearchPage } from './jurisdiction-index.js';

export interface SearchRequest {
  q: string;
  /** Upper-case ISO 3166-1 alpha-2 code. */
  jurisdiction: string;
  /** 1-based. */
  page: number;
  pageSize: number;
}

function validateCompanies(companies: readonly CompanyResult[]): void {
  if (!Array.isArray(companies)) throw new TypeError('companies must be an array of company results');
  const keys = new Set<string>();
  companies.forEach((company: Partial<CompanyResult> | null, index) => {
    for (const field of ['name', 'companyNumber', 'jurisdiction'] as const) {
      if (typeof company?.[field] !== 'string') throw new TypeError(`companies[${index}].${field} must be a string`);
    }
    if (!Array.isArray(company?.previousNames)) throw new TypeError(`companies[${index}].previousNames must be an array`);
    const key = `${company.jurisdiction} ${company.companyNumber}`;
    if (keys.has(key)) throw new RangeError(`companies[${index}] repeats the jurisdiction and company number ${key}`);
    keys.add(key);
  });
}

/** Searches companies by name or number within one jurisdiction. */
export class SearchIndex {
  private readonly byJurisdiction = new Map<string, JurisdictionIndex>();

  constructor(companies: readonly CompanyResult[]) {
    validateCompanies(companies);
    const groups = new Map<string, CompanyResult[]>();
    for (const company of companies) {
      const group = groups.get(company.jurisdiction);
      if (group === undefined) groups.set(company.jurisdiction, [company]);
      else group.push(company);
    }
    for (const [jurisdiction, group] of groups) this.byJurisdiction.set(jurisdiction, new JurisdictionIndex(group));
  }

  search({ q, jurisdiction, page, pageSize }: SearchRequest): SearchPage {
    const index = this.byJurisdiction.get(jurisdiction);
    if (index === undefined) return { results: [], total: 0 };
    return index.search(q, (page - 1) * pageSize, pageSize);
  }
}

const indexes = new WeakMap<readonly CompanyResult[], SearchIndex>();

/** One index per companies array, so services started over the same data share the start-up work. */
export function searchIndexFor(companies: readonly CompanyResult[]): SearchIndex {
  let index = indexes.get(companies);
  if (index === undefined) {
    index = new SearchIndex(companies);
    indexes.set(companies, index);
  }
  return index;
}
