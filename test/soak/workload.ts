import { print } from 'graphql';
import { defaultDataSet } from '../../src/lookup-service/index.js';
import {
  CompanyByNumberDocument,
  DashboardSearchDocument,
  NodeByIdDocument,
  SearchCompaniesDocument,
  type SearchCompaniesQuery,
} from '../generated/graphql.js';

/** One GraphQL request of the mix, named for the report. */
export interface Operation {
  name: string;
  query: string;
  variables: Record<string, unknown>;
}

interface Search {
  q: string;
  jurisdiction: string;
}

/** Words common in the data set's names, so that most searches find something. */
const WORDS = [
  'holdings',
  'group',
  'partners',
  'international',
  'wood',
  'green',
  'hill',
  'light',
  'star',
  'bridge',
  'point',
  'court',
  'line',
  'stream',
  'events',
  'consulting',
  'enterprises',
  'medical',
  'textiles',
  'flooring',
  'cross',
  'bakery',
  'catering',
  'widgets',
  'ventures',
  'cleaning',
  'electrical',
  'digital',
  'aviation',
  'construction',
  'heating',
  'field',
  'publishing',
  'autos',
  'leisure',
  'plastics',
  'interiors',
  'windows',
  'view',
  'brothers',
  'sons',
  'daughters',
  'community',
  'kestrel',
  'quantum',
  'nomad',
];
const JURISDICTIONS = ['GB', 'IE'];
const HOT_SEARCHES = 40;
/** Every rotation, this many hot searches give way to new ones. */
const ROTATED_PER_TURN = 4;
const KNOWN_COMPANIES = 2_000;
const HARVEST_LIMIT = 500;
const PAGE_SIZES = [5, 10, 20, 50];

const TEXT = {
  dashboard: print(DashboardSearchDocument),
  search: print(SearchCompaniesDocument),
  company: print(CompanyByNumberDocument),
  node: print(NodeByIdDocument),
};

function pick<T>(items: readonly T[]): T {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error('pick() from an empty list');
  return item;
}

function newSearch(): Search {
  const first = pick(WORDS);
  // Single words repeat across the run; pairs are mostly new to the cache.
  const q = Math.random() < 0.3 ? first : `${first} ${pick(WORDS)}`;
  return { q, jurisdiction: pick(JURISDICTIONS) };
}

/**
 * The mix of requests: searches with a dashboard's small selection and a
 * card's full one over a rotating set of popular searches (cache hits) and
 * new ones (misses), the next page after a cursor seen earlier, lookups by
 * company number, and refetches by global ID seen earlier.
 */
export class Workload {
  readonly #hot: Search[] = Array.from({ length: HOT_SEARCHES }, newSearch);
  readonly #companies = Array.from({ length: KNOWN_COMPANIES }, () => pick(defaultDataSet()));
  readonly #ids: string[] = [];
  readonly #nextPages: (Search & { after: string; pageSize: number })[] = [];

  /** Replaces a few popular searches with new ones, as interest moves on. */
  rotate(): void {
    for (let turn = 0; turn < ROTATED_PER_TURN; turn++) this.#hot[Math.floor(Math.random() * this.#hot.length)] = newSearch();
  }

  next(): Operation {
    const roll = Math.random();
    if (roll < 0.25) return { name: 'dashboard', query: TEXT.dashboard, variables: { ...pick(this.#hot) } };
    if (roll < 0.45) return this.#search(pick(this.#hot), 'search:popular');
    if (roll < 0.55) return this.#search(newSearch(), 'search:new');
    if (roll < 0.65 && this.#nextPages.length > 0) {
      const page = pick(this.#nextPages);
      return { name: 'search:after', query: TEXT.search, variables: { ...page } };
    }
    if (roll < 0.85 || this.#ids.length === 0) {
      const company = pick(this.#companies);
      return {
        name: 'company',
        query: TEXT.company,
        variables: { jurisdiction: company.jurisdiction, companyNumber: company.companyNumber },
      };
    }
    return { name: 'node', query: TEXT.node, variables: { id: pick(this.#ids) } };
  }

  /** Keeps IDs and next-page cursors from full search answers for later requests. */
  harvest(operation: Operation, data: unknown): void {
    if (operation.query !== TEXT.search || data === null || typeof data !== 'object') return;
    const connection = (data as Partial<SearchCompaniesQuery>).searchCompanies;
    if (!connection) return;
    for (const edge of connection.edges.slice(0, 3)) remember(this.#ids, edge.node.id);
    const { endCursor, hasNextPage } = connection.pageInfo;
    if (hasNextPage && endCursor) {
      const { q, jurisdiction, pageSize } = operation.variables as unknown as Search & { pageSize: number };
      remember(this.#nextPages, { q, jurisdiction, pageSize, after: endCursor });
    }
  }

  #search(search: Search, name: string): Operation {
    return { name, query: TEXT.search, variables: { ...search, pageSize: pick(PAGE_SIZES) } };
  }
}

function remember<T>(list: T[], item: T): void {
  if (list.length >= HARVEST_LIMIT) list.splice(Math.floor(Math.random() * list.length), 1);
  list.push(item);
}
