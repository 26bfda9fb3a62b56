import { InMemoryCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';

/** A company's `id`: Relay's global ID, base64 of `Company:<jurisdiction>:<companyNumber>`. */
function companyId(jurisdiction: string, companyNumber: string): string {
  return btoa(`Company:${jurisdiction.toUpperCase()}:${companyNumber}`);
}

export function createCache(): InMemoryCache {
  return new InMemoryCache({
    possibleTypes: { Node: ['Company'] },
    typePolicies: {
      Query: {
        fields: {
          // One list per search, whatever the page size: pages fetched forward (first/after)
          // and backward (last/before) are merged into it in order.
          searchCompanies: relayStylePagination(['q', 'jurisdiction']),
          // A company the cache already holds (from a search, by number or by ID) is read from it;
          // a reference to one it does not hold sends the query to the gateway.
          company: {
            read: (existing, { args, toReference }) =>
              existing ?? (args && toReference({ __typename: 'Company', id: companyId(args.jurisdiction, args.companyNumber) })),
          },
          node: {
            read: (existing, { args, toReference }) => existing ?? (args && toReference({ __typename: 'Company', id: args.id })),
          },
        },
      },
    },
  });
}
