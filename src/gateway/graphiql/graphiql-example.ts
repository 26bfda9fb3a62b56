/** The query GraphiQL opens with: a search that shows off every part of a company. */
export const GRAPHIQL_EXAMPLE_QUERY = /* GraphQL */ `query SearchCompaniesExample(
  $q: String! = "holdings"
  $jurisdiction: CountryCode! = "GB"
  $pageSize: Int = 5
) {
  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: $pageSize) {
    totalCount
    reachableCount
    fetchedAt
    stale
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      cursor
      node {
        id
        name
        companyNumber
        jurisdiction
        status
        statusText
        incorporatedDate
        isPlatformMember
        address {
          formatted
          city
          postcode
          countryCode
        }
        previousNames {
          name
          startDate
          endDate
        }
        avatar {
          image
          initials
        }
      }
    }
  }
}
`;
