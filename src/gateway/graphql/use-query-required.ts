import type { Plugin } from 'graphql-yoga';
import { BadRequestError } from '../../errors/request-errors.js';

/**
 * Refuses an operation with no document to run (no `query`, `null`, or only blank space: `{}`, `{"variables": {}}`,
 * `{"query": ""}`) with 400 `BAD_REQUEST`, whatever the client accepts, saying what to send. Yoga's own check answers
 * `{}` "Must provide query string." with 200 to a client accepting `application/json`; the GraphQL-over-HTTP
 * specification asks for a 4xx to any request that is not a well-formed GraphQL-over-HTTP request, and one without
 * its required `query` is not. An empty string is a document that does not parse, and is told the same.
 *
 * After the trusted documents plugin, which answers a request with neither `query` nor `documentId` itself, and puts
 * the document a `documentId` names in `query`.
 */
export function useQueryRequired({ extraParamNames = [] }: { extraParamNames?: readonly string[] } = {}): Plugin {
  const known = new Set([...YOGA_PARAMS, ...extraParamNames]);
  const inBody = 'The request holds no GraphQL document: send one in "query", such as {"query": "{ __typename }"}';
  const inUrl = 'The request holds no GraphQL document: send one in the "query" parameter, such as ?query={__typename}';
  return {
    onParams({ params, request }) {
      const named = params as Record<string, unknown>;
      const { query } = named;
      if (query !== undefined && query !== null && !(typeof query === 'string' && query.trim() === '')) return;
      // Yoga's own check, after this one, names a parameter it does not take (`documentId` where trusted documents are
      // off): a better answer than this one to a client that sent something it took for a document.
      if (Object.keys(named).some((name) => named[name] != null && !known.has(name))) return;
      throw new BadRequestError(request.method === 'GET' ? inUrl : inBody);
    },
  };
}

/** The parameters Yoga takes besides its `extraParamNames`. */
const YOGA_PARAMS = ['query', 'variables', 'operationName', 'extensions'];
