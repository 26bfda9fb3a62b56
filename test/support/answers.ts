import { DashboardSearchDocument } from '../generated/graphql.js';
import { freshSearch } from './searches.js';
import type { Stack } from './stack.js';

/** The extensions.code of each error of a GraphQL answer, in order; undefined when it has no errors. */
export function errorCodes(body: { errors?: { extensions?: Record<string, unknown> }[] }): unknown[] | undefined {
  return body.errors?.map((error) => error.extensions?.code);
}

/** The code of the first error the gateway answers a dashboard search with (by default one no cache holds); undefined when none. */
export async function errorCode(stack: Stack, search = freshSearch()): Promise<unknown> {
  const { body } = await stack.execute(DashboardSearchDocument, search);
  return body.errors?.[0]?.extensions?.code;
}
