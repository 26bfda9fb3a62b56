/**
 * Every code a client can find in `extensions.code`: of an error, or for
 * STALE_DATA of a warning in `extensions.warnings`. Each says with which HTTP
 * status it comes, what it means and what the client should do. docs/errors.md
 * is made from it (`npm run docs:errors`; CI fails when they differ), and no
 * code is written anywhere in src/ but in this folder.
 */
export interface CodeEntry {
  /** The status of an answer with this code, then those it has in the cases `meaning` names. */
  readonly statuses: readonly [number, ...number[]];
  /** Answered 200 instead when the client accepts only `application/json`, as the GraphQL-over-HTTP specification asks for errors of a well-formed request. */
  readonly okForApplicationJson?: true;
  /**
   * The gateway or the lookup service failed the client, not its request: a request answered with it counts as failed
   * against the availability SLO (csg_http_requests_failed_total, deploy/prometheus/alerts.yaml).
   */
  readonly serviceFailure?: true;
  readonly meaning: string;
  readonly whatToDo: string;
}

export const ERROR_CODES = {
  // Refused in front of GraphQL, on the request's headers and address alone.
  UNAUTHENTICATED: {
    statuses: [401],
    meaning:
      'No credential, or one the gateway does not take: an unknown API key, a bearer token expired, badly signed, for another issuer or audience, or without a usable `sub`; the message says which, and `WWW-Authenticate` the schemes accepted',
    whatToDo: 'Send one valid credential: an API key in `x-api-key` or a bearer token in `Authorization`',
  },
  AUTH_UNAVAILABLE: {
    statuses: [503],
    serviceFailure: true,
    meaning: "Bearer tokens cannot be checked: the issuer's key set (`JWT_JWKS_URL`) could not be fetched; not the client's fault",
    whatToDo: 'Retry after `Retry-After` (5 s)',
  },
  RATE_LIMITED: {
    statuses: [429],
    meaning:
      'The client (API key id, token subject, or address) is over `RATE_LIMIT_PER_MINUTE` and `RATE_LIMIT_BURST`; each operation of a batch counts',
    whatToDo: 'Wait the seconds `Retry-After` gives, then retry; spread requests out',
  },
  PAYLOAD_TOO_LARGE: {
    statuses: [413],
    meaning: 'The body is over `MAX_BODY_BYTES`, or a batch holds more operations than `RATE_LIMIT_BURST`',
    whatToDo: 'Send a smaller body, or fewer operations per batch',
  },
  CROSS_SITE_REQUEST_REFUSED: {
    statuses: [403],
    meaning:
      "A browser request from another site whose origin is not in `CORS_ALLOWED_ORIGINS`, or a browser's form or text POST (it names an `Origin`) without an `x-graphql-yoga-csrf` header (CSRF prevention)",
    whatToDo: "Call from an allowed origin (the gateway's operators can add yours), or POST `application/json`",
  },
  CORS_ORIGIN_NOT_ALLOWED: {
    statuses: [403],
    meaning: 'A CORS preflight (`OPTIONS`) from an origin not in `CORS_ALLOWED_ORIGINS`',
    whatToDo: "Call from an allowed origin, or ask the gateway's operators to add yours",
  },
  NOT_ACCEPTABLE: {
    statuses: [406],
    meaning:
      'The `Accept` header allows none of the media types answers come in (`application/graphql-response+json`, `application/json`, `text/event-stream`, `multipart/mixed`, in UTF-8), its q-values weighed (`;q=0` refuses a type), or is longer than 512 characters',
    whatToDo: 'Accept `application/graphql-response+json` or `application/json`',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    statuses: [415],
    meaning:
      "A POST body of a `Content-Type` the gateway does not read, or without one; or a form or text body from a client that names no `Origin` (`curl -d` sends a form's type) without an `x-graphql-yoga-csrf` header",
    whatToDo: 'Send `Content-Type: application/json`',
  },
  NOT_FOUND: {
    statuses: [404],
    meaning:
      "A path other than `/graphql` and `/health`, and, where GraphiQL is served, GraphiQL's files under `/graphiql/`; on the admin port (`ADMIN_PORT`), any path but `/purge`",
    whatToDo: 'Send GraphQL requests to `/graphql`, purges to `POST /purge` on the admin port',
  },
  GRAPHIQL_UNAVAILABLE: {
    statuses: [404],
    meaning:
      'A browser asked for GraphiQL (a GET of `/graphql` accepting `text/html`) where it is off (`GRAPHIQL=false`, the default in production), or where only trusted documents run (`ALLOW_ARBITRARY_OPERATIONS=false`, the default with `TRUSTED_DOCUMENTS`): GraphiQL sends whole queries, and none would run',
    whatToDo:
      "Where it is off, its operators can set `GRAPHIQL=true`; where only trusted documents run, send the `documentId` of a trusted document from a client built with the manifest, or ask the gateway's operators for a gateway that allows arbitrary operations",
  },
  TOO_MANY_CONNECTIONS: {
    statuses: [503],
    serviceFailure: true,
    meaning: 'The gateway already serves `MAX_CONNECTIONS` connections; this one is closed after the answer',
    whatToDo: 'Retry after `Retry-After` (1 s), on a new connection',
  },
  REQUEST_TIMEOUT: {
    statuses: [408],
    meaning:
      'The headers, or the whole request, did not arrive within `HEADERS_TIMEOUT_MS` or `REQUEST_TIMEOUT_MS`; the connection is closed',
    whatToDo: 'Send the request again, without pauses',
  },
  BAD_REQUEST: {
    statuses: [400, 405, 413, 417, 431],
    meaning:
      'Not a request the gateway can run, as the message says: not HTTP/1.1 Node can parse, headers too large (431), a Host header that is no host and port or none in HTTP/1.1, an `Expect` other than `100-continue` (417), a body that is not JSON or not an object, a parameter of the wrong type, no `query` or `documentId` (`{}`, `{"query": ""}`: 400 whether the client accepts `application/json` or `application/graphql-response+json`), no operation to pick, a mutation or subscription, a method other than GET and POST (GET and HEAD under `/graphiql/`) or a mutation over GET (405), a batch with batching off or over `BATCHING_LIMIT` (413)',
    whatToDo: 'Fix what the message names; the same request gets the same answer',
  },
  INTERNAL_SERVER_ERROR: {
    statuses: [500, 200],
    serviceFailure: true,
    meaning:
      "Something failed inside the gateway; the answer says no more (the gateway's log has the details); 200 when other fields still have data",
    whatToDo: "Retry later; if it keeps happening, tell the gateway's operators when",
  },
  // Refused before any resolver runs.
  GRAPHQL_PARSE_FAILED: {
    statuses: [400],
    okForApplicationJson: true,
    meaning: "The document is not GraphQL, or holds more than `MAX_TOKENS` tokens (the code is Yoga's)",
    whatToDo: 'Fix the syntax at the location given, or send a shorter document',
  },
  GRAPHQL_VALIDATION_FAILED: {
    statuses: [400],
    okForApplicationJson: true,
    meaning:
      "The document does not fit the schema, is deeper than `MAX_DEPTH`, has more aliases than `MAX_ALIASES` or directives than `MAX_DIRECTIVES`, or asks for `__schema` with introspection off (the code is Yoga's)",
    whatToDo: 'Change the document as the message says; `schema.graphql` lists every type and field',
  },
  DOCUMENT_TOO_LARGE: {
    statuses: [400],
    meaning: 'The document is longer than `MAX_DOCUMENT_LENGTH` characters',
    whatToDo: 'Send a shorter document',
  },
  OPERATION_TOO_COMPLEX: {
    statuses: [400],
    okForApplicationJson: true,
    meaning: 'The document holds more than `MAX_EXPANDED_SELECTIONS` selections once each fragment is written out where it is spread',
    whatToDo: 'Spread fragments fewer times, or send a smaller operation',
  },
  UPSTREAM_SEARCH_BUDGET_EXCEEDED: {
    statuses: [400],
    okForApplicationJson: true,
    meaning:
      'The operation would start more than `MAX_UPSTREAM_SEARCHES` distinct upstream searches (`searchCompanies`, `company` and `node` fields with different arguments)',
    whatToDo: 'Split it into several operations',
  },
  RESPONSE_TOO_LARGE: {
    statuses: [400],
    okForApplicationJson: true,
    meaning:
      "The answer, errors and warnings included (a batch's answers together), would be more than `MAX_RESPONSE_BYTES` bytes of JSON; it is refused whole, without data",
    whatToDo: 'Select fewer fields, use fewer aliases, or ask for smaller pages',
  },
  TRUSTED_DOCUMENT_REQUIRED: {
    statuses: [400],
    meaning: 'With `TRUSTED_DOCUMENTS` and without `ALLOW_ARBITRARY_OPERATIONS`, the request sent a `query` instead of a `documentId`',
    whatToDo: 'Send `documentId` with the id of an operation from the manifest',
  },
  TRUSTED_DOCUMENT_NOT_FOUND: {
    statuses: [400],
    meaning: 'The `documentId` (or `extensions.persistedQuery.sha256Hash`) names no document of the manifest',
    whatToDo: "Send the id codegen's manifest gives the operation; a client built against another manifest needs updating",
  },
  // Errors beside the data of an executed operation.
  BAD_USER_INPUT: {
    statuses: [200, 400],
    meaning:
      'An argument value is not accepted: `extensions.argument` names it, the field is null and the upstream is not called (also where a variable with a default is sent `null` for an argument that needs a value, `extensions.variable` naming it); a variable or literal of the wrong type is refused before execution with 400, `extensions.variable` naming the variable',
    whatToDo: 'Correct the value the message names',
  },
  UPSTREAM_AUTH_FAILED: {
    statuses: [200],
    serviceFailure: true,
    meaning: "The lookup service refused the gateway's own credentials",
    whatToDo: "Tell the gateway's operators; retrying will not help until they have checked the credentials",
  },
  UPSTREAM_RATE_LIMITED: {
    statuses: [200],
    serviceFailure: true,
    meaning:
      'The lookup service limits how often the gateway may call it (its 429, or the gateway holding calls back after one, or the calls `UPSTREAM_MAX_CALLS_PER_MINUTE` allows spent)',
    whatToDo: 'Retry shortly, or after the time the message names',
  },
  UPSTREAM_UNAVAILABLE: {
    statuses: [200],
    serviceFailure: true,
    meaning: "The lookup service failed (5xx, no connection), or the gateway's circuit breaker holds calls back after a run of failures",
    whatToDo: 'Retry shortly, or after the time the message names',
  },
  UPSTREAM_TIMEOUT: {
    statuses: [200],
    serviceFailure: true,
    meaning: 'The lookup service did not answer within `REQUEST_DEADLINE_MS` or its connect, headers or body timeouts',
    whatToDo: 'Retry shortly',
  },
  UPSTREAM_BAD_RESPONSE: {
    statuses: [200],
    serviceFailure: true,
    meaning:
      'The lookup service answered something the gateway cannot read: not JSON, not of the documented shape, or an unexpected status',
    whatToDo: "Retry later; if it keeps happening, tell the gateway's operators",
  },
  UPSTREAM_REJECTED_QUERY: {
    statuses: [200],
    meaning: 'The lookup service answered 400 to a search the gateway considered valid',
    whatToDo: 'Change the search; repeating it gets the same answer',
  },
  UPSTREAM_INVALID_FIELD: {
    statuses: [200],
    meaning:
      'A partial error: the lookup service sent one value unreadable (`extensions.upstreamField` names it), so the field it feeds is null or a result is left out; the rest is good',
    whatToDo: 'Use the rest of the answer; asking again gets the same',
  },
  // The admin server (ADMIN_PORT): for operators, never on the public port.
  ADMIN_UNAUTHENTICATED: {
    statuses: [401],
    meaning: 'A request to the admin server without `Authorization: Bearer <ADMIN_TOKEN>`, or with another token',
    whatToDo: "Send the gateway's `ADMIN_TOKEN` as a bearer token",
  },
  PURGE_TARGET_MISSING: {
    statuses: [400],
    meaning:
      'A purge whose body names nothing to drop, or only part of it: `q` or `companyNumber` without the `jurisdiction` they belong to',
    whatToDo:
      'Name one of: `{"jurisdiction":"GB","q":"holdings"}`, `{"jurisdiction":"GB"}`, `{"jurisdiction":"GB","companyNumber":"01234567"}`, `{"tag":"csg:c:GB:01234567"}` or `{"all":true}`',
  },
  PURGE_TARGET_AMBIGUOUS: {
    statuses: [400],
    meaning: 'A purge whose body names more than one thing to drop: `all` or `tag` with anything else, or `q` with `companyNumber`',
    whatToDo: 'Send one purge for each',
  },
  PURGE_TARGET_INVALID: {
    statuses: [400],
    meaning:
      'A purge whose body is not a JSON object of the fields a purge takes (`all`, `jurisdiction`, `q`, `companyNumber`, `tag`), or whose value the message names is not one: `all` other than `true`, a jurisdiction that is not an ISO 3166-1 alpha-2 code, an empty `q` or `companyNumber`, a tag the gateway does not write',
    whatToDo: 'Fix what the message names',
  },
  STALE_DATA: {
    statuses: [200],
    meaning:
      'A warning in `extensions.warnings`, not an error: the lookup service failed (`reason`), so the data at `path` is a copy fetched at `fetchedAt`, past its cache TTL',
    whatToDo: 'Use the data, knowing its age; ask again later for fresh data',
  },
} as const satisfies Record<string, CodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The status column of docs/errors.md: e.g. `400, 405` or `400 (200 for application/json)`. */
export function statusText(entry: CodeEntry): string {
  return `${entry.statuses.join(', ')}${entry.okForApplicationJson ? ' (200 for `application/json`)' : ''}`;
}
