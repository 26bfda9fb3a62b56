import type { CompanyResult } from './company.js';
import { foldCase, nameWords, normaliseCompanyNumber } from './name-normalisation.js';

export interface SearchPage {
  /** The companies of the requested page, best match first. */
  results: CompanyResult[];
  /** All matches, counted before the page is cut. */
  total: number;
}

// Match kinds from best to worst. A match on a previous name ranks just below
// a match of the same kind on a current name, hence the gaps of two.
const EXACT_NAME = 0;
const NAME_PREFIX = 2;
const ALL_WORDS = 4;
const PREVIOUS_NAME = 1;
const MATCH_KINDS = 6;

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Tie-break order: by name (case- and accent-insensitive, then exact), then by company number. */
function sortedForTies(companies: readonly CompanyResult[]): CompanyResult[] {
  return companies
    .map((company) => ({ company, folded: foldCase(company.name) }))
    .sort(
      (a, b) =>
        compareText(a.folded, b.folded) ||
        compareText(a.company.name, b.company.name) ||
        compareText(a.company.companyNumber, b.company.companyNumber),
    )
    .map(({ company }) => company);
}

function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] ?? '') < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The search over the companies of one jurisdiction. Every name (current and
 * previous) is an entry; entries are numbered in tie-break order of their
 * company, so walking entries in number order yields ties already sorted and
 * no per-query sort is needed.
 */
export class JurisdictionIndex {
  private readonly companies: readonly CompanyResult[];
  private readonly entryCompany: Uint32Array;
  private readonly entryIsPrevious: Uint8Array;
  private readonly entryNames: string[] = [];
  /** Word → ascending entry numbers of the names containing it. */
  private readonly postings = new Map<string, Uint32Array>();
  /** Every indexed word, sorted, for prefix look-ups. */
  private readonly vocabulary: string[];
  private readonly companyByNumber = new Map<string, number>();

  constructor(companies: readonly CompanyResult[]) {
    this.companies = sortedForTies(companies);
    const entryCount = this.companies.reduce((count, company) => count + 1 + company.previousNames.length, 0);
    this.entryCompany = new Uint32Array(entryCount);
    this.entryIsPrevious = new Uint8Array(entryCount);
    const postingLists = new Map<string, number[]>();

    const addEntry = (companyRank: number, name: string, isPrevious: boolean) => {
      const entry = this.entryNames.length;
      const words = nameWords(name);
      this.entryCompany[entry] = companyRank;
      this.entryIsPrevious[entry] = isPrevious ? 1 : 0;
      this.entryNames.push(words.join(' '));
      for (const word of words) {
        let list = postingLists.get(word);
        if (list === undefined) {
          list = [];
          postingLists.set(word, list);
        }
        if (list.at(-1) !== entry) list.push(entry);
      }
    };

    this.companies.forEach((company, rank) => {
      this.companyByNumber.set(normaliseCompanyNumber(company.companyNumber), rank);
      addEntry(rank, company.name, false);
      for (const previous of company.previousNames) addEntry(rank, previous.name, true);
    });
    for (const [word, list] of postingLists) this.postings.set(word, Uint32Array.from(list));
    this.vocabulary = [...postingLists.keys()].sort();
  }

  /**
   * Companies whose number equals the query come first, then companies whose
   * current or previous name matches: exact name, then name prefix, then all
   * query words as words of the name (the last query word may be a prefix).
   */
  search(query: string, offset: number, limit: number): SearchPage {
    const numberMatch = this.companyByNumber.get(normaliseCompanyNumber(query));
    const byKind = this.nameMatchesByKind(nameWords(query), numberMatch);
    const ranked = numberMatch === undefined ? byKind : [[numberMatch], ...byKind];
    const total = ranked.reduce((sum, ranks) => sum + ranks.length, 0);
    return { results: this.page(ranked, offset, limit), total };
  }

  private page(ranked: readonly number[][], offset: number, limit: number): CompanyResult[] {
    const results: CompanyResult[] = [];
    let position = 0;
    for (const ranks of ranked) {
      for (let i = Math.max(0, offset - position); i < ranks.length && results.length < limit; i++) {
        const company = this.companies[ranks[i] ?? -1];
        if (company === undefined) throw new RangeError(`No company at rank ${String(ranks[i])}`);
        results.push(company);
      }
      position += ranks.length;
    }
    return results;
  }

  /** Company ranks per match kind, each list in tie-break order. */
  private nameMatchesByKind(words: readonly string[], excludedCompany: number | undefined): number[][] {
    const byKind = Array.from({ length: MATCH_KINDS }, (): number[] => []);
    const matched = this.entriesWithAllWords(words);
    if (matched === undefined) return byKind;
    const phrase = words.join(' ');
    let company = -1;
    let bestKind = MATCH_KINDS;
    const flush = () => {
      if (company >= 0 && company !== excludedCompany) byKind[bestKind]?.push(company);
    };
    for (let entry = 0; entry < matched.length; entry++) {
      if (matched[entry] !== words.length) continue;
      const entryCompany = this.entryCompany[entry] ?? -1;
      if (entryCompany !== company) {
        flush();
        company = entryCompany;
        bestKind = MATCH_KINDS;
      }
      bestKind = Math.min(bestKind, this.matchKind(entry, phrase));
    }
    flush();
    return byKind;
  }

  private matchKind(entry: number, phrase: string): number {
    const name = this.entryNames[entry] ?? '';
    const kind = name === phrase ? EXACT_NAME : name.startsWith(phrase) ? NAME_PREFIX : ALL_WORDS;
    return this.entryIsPrevious[entry] === 1 ? kind + PREVIOUS_NAME : kind;
  }

  /**
   * Per entry, how many query words it contains, counting only entries that
   * contained every earlier word, so that entries with all words end up at
   * words.length. Undefined when some word occurs nowhere.
   */
  private entriesWithAllWords(words: readonly string[]): Uint16Array | undefined {
    const last = words.at(-1);
    // No name has as many words as a Uint16 counts, so such a query matches nothing.
    if (last === undefined || words.length > 0xffff) return undefined;
    const steps: Uint32Array[][] = [];
    for (const word of words.slice(0, -1)) {
      const list = this.postings.get(word);
      if (list === undefined) return undefined;
      steps.push([list]);
    }
    const prefixLists = this.listsOfWordsStartingWith(last);
    if (prefixLists.length === 0) return undefined;
    steps.push(prefixLists);

    const matched = new Uint16Array(this.entryNames.length);
    steps.forEach((lists, step) => {
      for (const list of lists) {
        for (const entry of list) {
          if (matched[entry] === step) matched[entry] = step + 1;
        }
      }
    });
    return matched;
  }

  private listsOfWordsStartingWith(prefix: string): Uint32Array[] {
    const lists: Uint32Array[] = [];
    for (let i = lowerBound(this.vocabulary, prefix); i < this.vocabulary.length; i++) {
      const word = this.vocabulary[i] ?? '';
      if (!word.startsWith(prefix)) break;
      const list = this.postings.get(word);
      if (list !== undefined) lists.push(list);
    }
    return lists;
  }
}
