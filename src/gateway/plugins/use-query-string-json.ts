import { createGraphQLError, type Plugin } from 'graphql-yoga';

const JSON_PARAMETERS = ['variables', 'extensions'];

/**
 * Checks that the `variables` and `extensions` of a GET request are JSON
 * objects before Yoga reads them: Yoga parses them unguarded, so bad JSON
 * there ends as a 500 "Unexpected error." instead of a 400 saying what is wrong.
 */
export function useQueryStringJson(): Plugin {
  return {
    onRequestParse({ request, url }) {
      if (request.method !== 'GET') return;
      for (const name of JSON_PARAMETERS) {
        const raw = url.searchParams.get(name);
        if (raw === null || raw === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(raw);
        } catch {
          throw createGraphQLError(`The "${name}" query parameter must be a JSON object, and is not JSON`, {
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        }
        if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
          throw createGraphQLError(`The "${name}" query parameter must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`, {
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        }
      }
    },
  };
}
