import { createServer } from 'node:http';
import { Pool } from 'undici';
import type { LookupStarted, ServerStarted } from '../protocol.js';
import { accessToken } from '../../support/lookup-client.js';
import { processStats, serveParent } from '../../harness/serve-parent.js';
import { listenOnLoopback } from './listen.js';

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

interface UpstreamPage {
  results: unknown[];
  total: number;
}

let upstream: { pool: Pool; authorization: string } | undefined;

async function searchAnswer(requestBody: Buffer): Promise<Buffer> {
  if (upstream === undefined) throw new Error('The proxy has not been started');
  const { q, jurisdiction, pageSize } = (JSON.parse(requestBody.toString('utf8')) as SearchRequest).variables;
  const response = await upstream.pool.request({
    method: 'GET',
    path: `/v1/company/search?${new URLSearchParams({ q, jurisdiction, pageSize: String(pageSize) })}`,
    headers: { authorization: upstream.authorization, accept: 'application/json' },
  });
  if (response.statusCode !== 200) throw new Error(`The lookup service answered ${response.statusCode}: ${await response.body.text()}`);
  const { results, total } = (await response.body.json()) as UpstreamPage;
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
    const lookup = params as LookupStarted;
    upstream = { pool: new Pool(lookup.url), authorization: `Bearer ${await accessToken(lookup)}` };
    return listenOnLoopback(server);
  },
  stats: processStats,
});
