import type { BenchContext, Server } from '../context.js';
import { send } from '../../support/http.js';
import { graphqlRequest } from '../operations.js';
import type { HotResult } from './hot.js';

/** `fetchedAt` says when the upstream was asked, which differs between two gateways and nothing else should. */
const FETCHED_AT = /"fetchedAt":"[^"]*"/g;

function withoutFetchedAt(body: Buffer): Buffer {
  return Buffer.from(body.toString('utf8').replace(FETCHED_AT, '"fetchedAt":"-"'));
}

/**
 * The hot answers of the main gateway, after thousands of repeats, against
 * the same queries executed by a second gateway process that never cached
 * them: the same bytes, but for when each fetched from the upstream.
 */
export async function compareWithSecondGateway(context: BenchContext, second: Server, hot: HotResult[]): Promise<void> {
  for (const { spec, answer } of hot) {
    const fresh = await send(second.url, graphqlRequest('/graphql', spec.operation, spec.variables));
    context.checks.identical(
      `${spec.id}: hot answer = answer of a second gateway process (fetchedAt aside)`,
      withoutFetchedAt(answer),
      withoutFetchedAt(fresh.body),
    );
  }
}
