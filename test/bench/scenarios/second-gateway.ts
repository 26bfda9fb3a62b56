import type { BenchContext, Server } from '../context.js';
import { send } from '../../support/http.js';
import { graphqlRequest, withoutFetchedAt } from '../operations.js';
import type { HotResult } from './hot.js';

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
