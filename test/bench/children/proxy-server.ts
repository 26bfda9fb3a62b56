import { createServer } from 'node:http';
import type { LookupStarted, ServerStarted } from '../protocol.js';
import { processStats, serveParent } from '../../harness/serve-parent.js';
import { listenOnLoopback } from './listen.js';
import { connectLookup, type LookupSearch } from './lookup-search.js';

/**
 * The floor of a cold request: a bare node:http server that turns each
 * GraphQL search into one call to the lookup service, and the lookup
 * service's page into a GraphQL answer as it is, with nothing else (no
 * schema, validation, field mapping, cache, limits or logs). One hop in, one
 * hop out, a parse and a serialization each way: the latency it adds over
 * the lookup service called directly is what no gateway can go below on this
 * machine.
 */
interface SearchRequest {
  variables: { q: string; jurisdiction: string; pageSize: number };
}

let search: LookupSearch | undefined;

async function searchAnswer(requestBody: Buffer): Promise<Buffer> {
  if (search === undefined) throw new Error('The proxy has not been started');
  const { q, jurisdiction, pageSize } = (JSON.parse(requestBody.toString('utf8')) as SearchRequest).variables;
  const { results, total } = await search(q, jurisdiction, pageSize);
  return Buffer.from(JSON.stringify({ data: { searchCompanies: { totalCount: total, nodes: results } } }));
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.once('end', () => {
    searchAnswer(Buffer.concat(chunks)).then(
      (body) => response.writeHead(200, { 'content-type': 'application/graphql-response+json', 'content-length': body.length }).end(body),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
    );
  });
});

serveParent({
  async start(params): Promise<ServerStarted> {
    search = await connectLookup(params as LookupStarted);
    return listenOnLoopback(server);
  },
  stats: processStats,
});
