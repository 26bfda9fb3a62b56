import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { COMPANY_STATUSES } from '../../../src/lookup-service/index.js';
import type { LookupStarted, ServerStarted } from '../protocol.js';
import { processStats, serveParent } from '../../harness/serve-parent.js';
import { connectLookup, type LookupResult, type LookupSearch } from './lookup-search.js';

/**
 * The peer: a plain Mercurius server with graphql-jit over the gateway's
 * schema (schema.graphql as printed) and the same lookup service, written as
 * a developer would write it for this schema: one upstream call per search,
 * each result mapped onto the schema's fields, answers serialized by
 * Mercurius and Fastify. No cache, limits, access checks or logs; its answers
 * carry the same data as the gateway's, not the same bytes (its own IDs and
 * cursors, a fetchedAt of each call).
 */
const SCHEMA = readFileSync(new URL('../../../schema.graphql', import.meta.url), 'utf8');
const KNOWN_STATUSES = new Set<string>(COMPANY_STATUSES);
/** The upstream's largest page. */
const MAX_PAGE_SIZE = 50;

interface SearchArguments {
  q: string;
  jurisdiction: string;
  pageSize?: number | null;
  first?: number | null;
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

function company(result: LookupResult) {
  const { addressStructured } = result;
  const country = addressStructured?.country;
  return {
    id: base64(`Company:${result.jurisdiction}:${result.companyNumber}`),
    name: result.name,
    companyNumber: result.companyNumber,
    jurisdiction: result.jurisdiction,
    status: KNOWN_STATUSES.has(result.status) ? result.status : 'UNKNOWN',
    statusText: result.status,
    incorporatedDate: result.incorporatedDate,
    isPlatformMember: result.isPlatformMember,
    address: addressStructured && {
      formatted: result.address,
      ...addressStructured,
      countryCode: typeof country === 'string' && /^[A-Z]{2}$/.test(country) ? country : null,
    },
    previousNames: result.previousNames,
    avatar: result.avatar,
  };
}

function resolvers(search: LookupSearch) {
  return {
    Query: {
      async searchCompanies(_root: unknown, { q, jurisdiction, pageSize, first }: SearchArguments) {
        const size = Math.min(first ?? pageSize ?? 20, MAX_PAGE_SIZE);
        const { results, total } = await search(q.trim(), jurisdiction.toUpperCase(), size);
        const nodes = results.map(company);
        const edges = nodes.map((node, position) => ({ cursor: base64(`position:${position}`), node }));
        return {
          totalCount: total,
          reachableCount: results.length,
          fetchedAt: new Date().toISOString(),
          stale: false,
          pageInfo: {
            hasNextPage: false,
            hasPreviousPage: false,
            startCursor: edges[0]?.cursor ?? null,
            endCursor: edges.at(-1)?.cursor ?? null,
          },
          edges,
          nodes,
        };
      },
    },
  };
}

const app = Fastify({ logger: false, keepAliveTimeout: 5_000 });

serveParent(
  {
    async start(params): Promise<ServerStarted> {
      const search = await connectLookup(params as LookupStarted);
      // jit: 1 compiles each query with graphql-jit from its second execution on.
      await app.register(mercurius, { schema: SCHEMA, resolvers: resolvers(search), jit: 1 });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}` };
    },
    stats: processStats,
  },
  () => app.close(),
);
