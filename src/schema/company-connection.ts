import type { Company } from '../upstream/company.js';
import { responsePathAsArray } from 'graphql';
import { UPSTREAM_MAX_PAGE_SIZE } from '../upstream/search-call.js';
import type { SearchPage } from '../upstream/search-windows.js';
import { normalizeSearchQuery, searchQueryKey } from '../upstream/search-query.js';
import { builder } from './builder.js';
import { CompanyRef } from './company.js';
import { decodeCursor, encodeCursor, searchFingerprint } from './cursor.js';
import { InvalidUpstreamFieldError } from '../errors/field-errors.js';
import { traced } from './traced-resolver.js';
import { checkQueryLength, resolvePageSize, searchArgs } from './search-arguments.js';
import { staleDataWarning } from '../errors/warnings.js';

interface CompanyConnectionShape {
  edges: { cursor: string; node: Company }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  page: SearchPage;
}

/** An edge whose cursor is encoded only when a client selects it; its getter is shared, not a closure per edge. */
class Edge {
  constructor(
    private readonly cursorAt: (position: number) => string,
    private readonly position: number,
    readonly node: Company,
  ) {}

  get cursor(): string {
    return this.cursorAt(this.position);
  }
}

/** Pothos types a connection's parent by its Relay fields only; the page rides along. */
function pageOf(connection: object): SearchPage {
  return (connection as CompanyConnectionShape).page;
}

export const CompanyConnectionRef = builder.connectionObject(
  {
    type: CompanyRef,
    name: 'CompanyConnection',
    description:
      'One page of a company search. The upstream serves one window of results per search; `reachableCount` says how many of `totalCount` can be paged through.',
    fields: (t) => ({
      totalCount: t.int({
        description: 'How many companies match the search in all, as the upstream counts them.',
        resolve: (connection) => pageOf(connection).totalCount,
      }),
      reachableCount: t.int({
        description: 'How many of the matches can be paged through; `hasNextPage` is false past them.',
        resolve: (connection) => pageOf(connection).reachableCount,
      }),
      fetchedAt: t.field({
        type: 'DateTime',
        description: 'When these results were fetched from the upstream.',
        resolve: (connection) => pageOf(connection).fetchedAt,
      }),
      stale: t.boolean({
        description:
          'Whether these results are older than the cache TTL: being refreshed, or, when `extensions.warnings` says so, kept because the upstream failed.',
        resolve: (connection) => pageOf(connection).stale,
      }),
    }),
  },
  { name: 'CompanyEdge', description: 'A company in a page of search results, with its cursor.' },
);

builder.queryField('searchCompanies', (t) =>
  t.field({
    type: CompanyConnectionRef,
    description:
      'Searches the companies of one jurisdiction by name or number: an exact number match first, then by relevance of the name. Identical searches are answered from a shared cache.',
    args: searchArgs,
    resolve: traced(async (_root, args, context, info) => {
      const { limit, fromEnd } = resolvePageSize(args, info);
      const query = normalizeSearchQuery(args.q, args.jurisdiction);
      checkQueryLength(query.q, context.limits.maxQueryLength, 'q');
      // Cursors cost a hash and an encoding each; a client selecting only `nodes` pays for none.
      let fingerprint: string | undefined;
      const fingerprintOfSearch = () => (fingerprint ??= searchFingerprint(searchQueryKey(query)));
      const cursorAt = (position: number) => encodeCursor(fingerprintOfSearch(), position);
      const start = args.after == null ? 0 : decodeCursor(args.after, fingerprintOfSearch(), 'after') + 1;
      const end = args.before == null ? undefined : decodeCursor(args.before, fingerprintOfSearch(), 'before');

      const page = await context.upstream.searchPage({ query, start, end, limit, fromEnd }, context.deadline);
      context.notes.recordData(page.freshUntil, { query, companies: page.entries.map((entry) => entry.company) });
      if (page.servedOnError) {
        const path = responsePathAsArray(info.path);
        context.notes.addWarning(staleDataWarning(page.servedOnError, page.fetchedAt, 'this search', path));
      }
      for (const position of page.omitted) {
        const upstreamField = `results[${position % UPSTREAM_MAX_PAGE_SIZE}]`;
        context.notes.addError(
          new InvalidUpstreamFieldError(
            `The company lookup service sent result ${position + 1} of this search without a readable name or company number; it is left out`,
            upstreamField,
            info,
          ),
        );
      }
      const { entries } = page;
      const connection: CompanyConnectionShape = {
        edges: entries.map(({ position, company }) => new Edge(cursorAt, position, company)),
        pageInfo: {
          hasNextPage: page.hasNextPage,
          hasPreviousPage: page.hasPreviousPage,
          get startCursor() {
            return entries.length > 0 ? cursorAt(entries[0]!.position) : null;
          },
          get endCursor() {
            return entries.length > 0 ? cursorAt(entries.at(-1)!.position) : null;
          },
        },
        page,
      };
      return connection;
    }),
  }),
);
