/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query SearchCompaniesExample(\n  $q: String! = \"holdings\"\n  $jurisdiction: CountryCode! = \"GB\"\n  $pageSize: Int = 5\n) {\n  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: $pageSize) {\n    totalCount\n    reachableCount\n    fetchedAt\n    stale\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        id\n        name\n        companyNumber\n        jurisdiction\n        status\n        statusText\n        incorporatedDate\n        isPlatformMember\n        address {\n          formatted\n          city\n          postcode\n          countryCode\n        }\n        previousNames {\n          name\n          startDate\n          endDate\n        }\n        avatar {\n          image\n          initials\n        }\n      }\n    }\n  }\n}\n": typeof types.SearchCompaniesExampleDocument,
    "query CompanyByNumber($jurisdiction: CountryCode!, $companyNumber: String!) {\n  company(jurisdiction: $jurisdiction, companyNumber: $companyNumber) {\n    ...CompanyDetails\n  }\n}": typeof types.CompanyByNumberDocument,
    "query DashboardSearch($q: String!, $jurisdiction: CountryCode!) {\n  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: 50) {\n    totalCount\n    nodes {\n      name\n      companyNumber\n      status\n    }\n  }\n}": typeof types.DashboardSearchDocument,
    "query NodeById($id: ID!) {\n  node(id: $id) {\n    id\n    ... on Company {\n      name\n      companyNumber\n      jurisdiction\n    }\n  }\n}": typeof types.NodeByIdDocument,
    "query SearchCompanies($q: String!, $jurisdiction: CountryCode!, $pageSize: Int, $first: Int, $after: String, $last: Int, $before: String) {\n  searchCompanies(\n    q: $q\n    jurisdiction: $jurisdiction\n    pageSize: $pageSize\n    first: $first\n    after: $after\n    last: $last\n    before: $before\n  ) {\n    totalCount\n    reachableCount\n    fetchedAt\n    stale\n    pageInfo {\n      hasNextPage\n      hasPreviousPage\n      startCursor\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        ...CompanyDetails\n      }\n    }\n  }\n}\n\nfragment CompanyDetails on Company {\n  id\n  name\n  companyNumber\n  jurisdiction\n  status\n  statusText\n  incorporatedDate\n  isPlatformMember\n  address {\n    formatted\n    streetLine1\n    streetLine2\n    city\n    region\n    postcode\n    country\n    countryCode\n    latitude\n    longitude\n  }\n  previousNames {\n    name\n    startDate\n    endDate\n  }\n  avatar {\n    image\n    initials\n  }\n}": typeof types.SearchCompaniesDocument,
};
const documents: Documents = {
    "query SearchCompaniesExample(\n  $q: String! = \"holdings\"\n  $jurisdiction: CountryCode! = \"GB\"\n  $pageSize: Int = 5\n) {\n  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: $pageSize) {\n    totalCount\n    reachableCount\n    fetchedAt\n    stale\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        id\n        name\n        companyNumber\n        jurisdiction\n        status\n        statusText\n        incorporatedDate\n        isPlatformMember\n        address {\n          formatted\n          city\n          postcode\n          countryCode\n        }\n        previousNames {\n          name\n          startDate\n          endDate\n        }\n        avatar {\n          image\n          initials\n        }\n      }\n    }\n  }\n}\n": types.SearchCompaniesExampleDocument,
    "query CompanyByNumber($jurisdiction: CountryCode!, $companyNumber: String!) {\n  company(jurisdiction: $jurisdiction, companyNumber: $companyNumber) {\n    ...CompanyDetails\n  }\n}": types.CompanyByNumberDocument,
    "query DashboardSearch($q: String!, $jurisdiction: CountryCode!) {\n  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: 50) {\n    totalCount\n    nodes {\n      name\n      companyNumber\n      status\n    }\n  }\n}": types.DashboardSearchDocument,
    "query NodeById($id: ID!) {\n  node(id: $id) {\n    id\n    ... on Company {\n      name\n      companyNumber\n      jurisdiction\n    }\n  }\n}": types.NodeByIdDocument,
    "query SearchCompanies($q: String!, $jurisdiction: CountryCode!, $pageSize: Int, $first: Int, $after: String, $last: Int, $before: String) {\n  searchCompanies(\n    q: $q\n    jurisdiction: $jurisdiction\n    pageSize: $pageSize\n    first: $first\n    after: $after\n    last: $last\n    before: $before\n  ) {\n    totalCount\n    reachableCount\n    fetchedAt\n    stale\n    pageInfo {\n      hasNextPage\n      hasPreviousPage\n      startCursor\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        ...CompanyDetails\n      }\n    }\n  }\n}\n\nfragment CompanyDetails on Company {\n  id\n  name\n  companyNumber\n  jurisdiction\n  status\n  statusText\n  incorporatedDate\n  isPlatformMember\n  address {\n    formatted\n    streetLine1\n    streetLine2\n    city\n    region\n    postcode\n    country\n    countryCode\n    latitude\n    longitude\n  }\n  previousNames {\n    name\n    startDate\n    endDate\n  }\n  avatar {\n    image\n    initials\n  }\n}": types.SearchCompaniesDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query SearchCompaniesExample(\n  $q: String! = \"holdings\"\n  $jurisdiction: CountryCode! = \"GB\"\n  $pageSize: Int = 5\n) {\n  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: $pageSize) {\n    totalCount\n    reachableCount\n    fetchedAt\n    stale\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        id\n        name\n        companyNumber\n        jurisdiction\n        status\n        statusText\n        incorporatedDate\n        isPlatformMember\n        address {\n          formatted\n          city\n          postcode\n          countryCode\n        }\n        previousNames {\n          name\n          startDate\n          endDate\n        }\n        avatar {\n          image\n          initials\n        }\n      }\n    }\n  }\n}\n"): (typeof documents)["query SearchCompaniesExample(\n  $q: String! = \"holdings\"\n  $jurisdiction: CountryCode! = \"GB\"\n  $pageSize: Int = 5\n) {\n  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: $pageSize) {\n    totalCount\n    reachableCount\n    fetchedAt\n    stale\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        id\n        name\n        companyNumber\n        jurisdiction\n        status\n        statusText\n        incorporatedDate\n        isPlatformMember\n        address {\n          formatted\n          city\n          postcode\n          countryCode\n        }\n        previousNames {\n          name\n          startDate\n          endDate\n        }\n        avatar {\n          image\n          initials\n        }\n      }\n    }\n  }\n}\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query CompanyByNumber($jurisdiction: CountryCode!, $companyNumber: String!) {\n  company(jurisdiction: $jurisdiction, companyNumber: $companyNumber) {\n    ...CompanyDetails\n  }\n}"): (typeof documents)["query CompanyByNumber($jurisdiction: CountryCode!, $companyNumber: String!) {\n  company(jurisdiction: $jurisdiction, companyNumber: $companyNumber) {\n    ...CompanyDetails\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query DashboardSearch($q: String!, $jurisdiction: CountryCode!) {\n  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: 50) {\n    totalCount\n    nodes {\n      name\n      companyNumber\n      status\n    }\n  }\n}"): (typeof documents)["query DashboardSearch($q: String!, $jurisdiction: CountryCode!) {\n  searchCompanies(q: $q, jurisdiction: $jurisdiction, pageSize: 50) {\n    totalCount\n    nodes {\n      name\n      companyNumber\n      status\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query NodeById($id: ID!) {\n  node(id: $id) {\n    id\n    ... on Company {\n      name\n      companyNumber\n      jurisdiction\n    }\n  }\n}"): (typeof documents)["query NodeById($id: ID!) {\n  node(id: $id) {\n    id\n    ... on Company {\n      name\n      companyNumber\n      jurisdiction\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query SearchCompanies($q: String!, $jurisdiction: CountryCode!, $pageSize: Int, $first: Int, $after: String, $last: Int, $before: String) {\n  searchCompanies(\n    q: $q\n    jurisdiction: $jurisdiction\n    pageSize: $pageSize\n    first: $first\n    after: $after\n    last: $last\n    before: $before\n  ) {\n    totalCount\n    reachableCount\n    fetchedAt\n    stale\n    pageInfo {\n      hasNextPage\n      hasPreviousPage\n      startCursor\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        ...CompanyDetails\n      }\n    }\n  }\n}\n\nfragment CompanyDetails on Company {\n  id\n  name\n  companyNumber\n  jurisdiction\n  status\n  statusText\n  incorporatedDate\n  isPlatformMember\n  address {\n    formatted\n    streetLine1\n    streetLine2\n    city\n    region\n    postcode\n    country\n    countryCode\n    latitude\n    longitude\n  }\n  previousNames {\n    name\n    startDate\n    endDate\n  }\n  avatar {\n    image\n    initials\n  }\n}"): (typeof documents)["query SearchCompanies($q: String!, $jurisdiction: CountryCode!, $pageSize: Int, $first: Int, $after: String, $last: Int, $before: String) {\n  searchCompanies(\n    q: $q\n    jurisdiction: $jurisdiction\n    pageSize: $pageSize\n    first: $first\n    after: $after\n    last: $last\n    before: $before\n  ) {\n    totalCount\n    reachableCount\n    fetchedAt\n    stale\n    pageInfo {\n      hasNextPage\n      hasPreviousPage\n      startCursor\n      endCursor\n    }\n    edges {\n      cursor\n      node {\n        ...CompanyDetails\n      }\n    }\n  }\n}\n\nfragment CompanyDetails on Company {\n  id\n  name\n  companyNumber\n  jurisdiction\n  status\n  statusText\n  incorporatedDate\n  isPlatformMember\n  address {\n    formatted\n    streetLine1\n    streetLine2\n    city\n    region\n    postcode\n    country\n    countryCode\n    latitude\n    longitude\n  }\n  previousNames {\n    name\n    startDate\n    endDate\n  }\n  avatar {\n    image\n    initials\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;